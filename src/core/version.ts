import { ownPackage } from './package-root.ts'

/** The installed agentevalops version, read from our own package.json. */
export function sdkVersion(): string {
  return ownPackage()?.version ?? '0.0.0-unknown'
}
