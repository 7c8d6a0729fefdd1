export { uploadBundle } from './upload-bundle.ts'
export { downloadBundles, type DownloadOptions } from './download-bundles.ts'
export { isS3Url, parseS3Url, type S3Location } from './s3-url.ts'
