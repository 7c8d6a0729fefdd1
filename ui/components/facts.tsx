/** Label–value pairs, as report.md's header lists a run's facts. */
export function Facts({ pairs, testid }: { pairs: readonly (readonly [string, string])[]; testid?: string }) {
  return (
    <dl class="facts" data-testid={testid}>
      {pairs.map(([label, value], i) => (
        <div key={i}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  )
}
