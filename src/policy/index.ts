export * from './basic'
