export * from './simple'
