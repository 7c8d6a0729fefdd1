/** Label–value pairs, as the report lists a run's facts. */
export function FactList({
  pairs,
  testid,
}: {
  pairs: readonly (readonly [string, string])[]
  testid?: string
}) {
  return (
    <dl class="facts" data-testid={testid}>
      {pairs.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  )
}
