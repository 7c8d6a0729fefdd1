export { LocalBackend, type LocalBackendOptions } from './local-backend.ts'
