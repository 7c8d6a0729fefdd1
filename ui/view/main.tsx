// Placeholder of the view app until ui/view (another engineer's) lands: the server's tests need an entry to build.
import { render } from 'preact'

const root = document.getElementById('app')
if (root) render(<p data-testid="view-placeholder">agentevalops view</p>, root)
