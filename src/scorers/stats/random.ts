// The generator lives in src/core (benchmarks shuffle with it too); the statistics keep importing it from here.
export { seededRandom } from '../../core/index.ts'
