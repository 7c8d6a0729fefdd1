export * from './toy'
