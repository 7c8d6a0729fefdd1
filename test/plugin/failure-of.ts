/** The message of the assertion error `assertion` throws; fails the test when it does not throw. */
export function failureOf(assertion: () => void): string {
  try {
    assertion()
  } catch (error) {
    return (error as Error).message
  }
  throw new Error('expected the assertion to fail, but it passed')
}
