import { defineConfig } from 'evalite/config'
import { CONCURRENCY } from '../shared.ts'

export default defineConfig({ maxConcurrency: CONCURRENCY })
