import { createContext } from 'preact'
import { useContext, useEffect, useState } from 'preact/hooks'
import type { Loaded, ViewClient } from './api-client.ts'
import type { LiveFeed, RunsState, RunsStore } from './store.ts'

export interface ViewServices {
  client: ViewClient
  feed: LiveFeed
  runs: RunsStore
}

export const Services = createContext<ViewServices | null>(null)

export function useServices(): ViewServices {
  const services = useContext(Services)
  if (!services) throw new Error('the view app renders its pages inside <Services.Provider>')
  return services
}

/** The runs list, loaded on first use and kept current by the live events. */
export function useRuns(): RunsState {
  const { runs } = useServices()
  const [state, setState] = useState(runs.state)
  useEffect(() => {
    const off = runs.subscribe(() => setState(runs.state))
    setState(runs.state)
    if (!runs.state.runs && !runs.state.error) void runs.load()
    return off
  }, [runs])
  return state
}

/** The live feed's status and problems, for the page header. */
export function useFeedStatus(): { status: string; problems: readonly string[] } {
  const { feed } = useServices()
  const read = () => ({ status: feed.status, problems: feed.problems })
  const [state, setState] = useState(read)
  useEffect(() => feed.onChange(() => setState(read())), [feed])
  return state
}

/**
 * Data of one API call, fetched again when `key` changes and when a run ends or the runs folder changes (a new
 * point on a trend, a new column of the history), so the page follows the folder without a reload. `null` while
 * loading, or when `load` is null (nothing to ask yet).
 */
export function useLiveData<T>(
  key: string,
  load: ((client: ViewClient) => Promise<Loaded<T>>) | null,
): Loaded<T> | null {
  const { client, feed } = useServices()
  const [loaded, setLoaded] = useState<Loaded<T> | null>(null)
  useEffect(() => {
    if (!load) {
      setLoaded(null)
      return
    }
    let current = true
    const fetchNow = () => {
      void load(client).then((result) => {
        if (current) setLoaded(result)
      })
    }
    setLoaded(null)
    fetchNow()
    const off = feed.onEvent((event) => {
      if (event.type === 'run-ended' || event.type === 'runs-changed') fetchNow()
    })
    return () => {
      current = false
      off()
    }
    // `load` is a new closure each render; `key` names what it asks for.
  }, [key, client, feed])
  return loaded
}
