import { render } from 'preact'
import { Facts } from '../components/facts.tsx'
import './report.css'

// A placeholder until the report page moves here from src/reports/html/script-*.ts.
const block = document.getElementById('data')
const data = block ? (JSON.parse(block.textContent ?? 'null') as { run: [string, string][] }) : null
const app = document.getElementById('app')
if (app && data) render(<Facts pairs={data.run} testid="run-facts" />, app)
