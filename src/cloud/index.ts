// CloudBackend implementations. Only `local` runs here; the engines people already run (GitHub Actions, Kubernetes,
// AWS Batch) are driven by the recipes in examples/ (see docs/scale-out.md).
export * from './local/index.ts'
