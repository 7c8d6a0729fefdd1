export * from './mock'
