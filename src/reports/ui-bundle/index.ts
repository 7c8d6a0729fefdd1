export { uiAsset, type UiAsset } from './assets.ts'
export { UI_DIST_DIR, UI_ENTRIES, uiBuildOptions, type UiEntry } from './build-options.ts'
