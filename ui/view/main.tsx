import { render } from 'preact'
import { App } from './app.tsx'
import '../components/theme.css'
import './view.css'

const root = document.getElementById('app')
if (root) render(<App />, root)
