// Vitest finds its config by walking up from the working folder: this empty one keeps the repository's own
// (projects, the agentevalops plugin) out of evalite's run.
import { defineConfig } from 'vitest/config'

export default defineConfig({})
