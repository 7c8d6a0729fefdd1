/**
 * Porter's stemmer (M. F. Porter, "An algorithm for suffix stripping", 1980), so that two texts that speak of the
 * same thing in different inflections or spellings meet: "cancelled", "canceled" and "cancellation" all become
 * "cancel", "confirmed" and "confirmation" "confirm", "flights" "flight". British -ise spellings are folded into
 * -ize first, and accents are dropped, so "organised"/"organized" and "café"/"cafe" meet too. Words with anything
 * but letters (ids, numbers) are left as they are: they are compared exactly.
 */

const VOWELS = new Set(['a', 'e', 'i', 'o', 'u'])

function isConsonant(w: string, i: number): boolean {
  const c = w[i]!
  if (VOWELS.has(c)) return false
  if (c === 'y') return i === 0 || !isConsonant(w, i - 1)
  return true
}

/** Porter's m: the number of vowel-consonant sequences in `w`, read as [C](VC)^m[V]. */
function measure(w: string): number {
  let m = 0
  let i = 0
  const n = w.length
  while (i < n && isConsonant(w, i)) i++
  while (i < n) {
    while (i < n && !isConsonant(w, i)) i++
    if (i >= n) break
    m++
    while (i < n && isConsonant(w, i)) i++
  }
  return m
}

function hasVowel(w: string): boolean {
  for (let i = 0; i < w.length; i++) if (!isConsonant(w, i)) return true
  return false
}

function endsDoubleConsonant(w: string): boolean {
  const n = w.length
  return n >= 2 && w[n - 1] === w[n - 2] && isConsonant(w, n - 1)
}

/** Ends consonant-vowel-consonant, the last not w, x or y (hop, not hoe or snow). */
function endsCvc(w: string): boolean {
  const n = w.length
  if (n < 3 || !isConsonant(w, n - 1) || isConsonant(w, n - 2) || !isConsonant(w, n - 3)) return false
  const last = w[n - 1]!
  return last !== 'w' && last !== 'x' && last !== 'y'
}

/** The longest rule whose suffix `w` ends with, applied when the rest satisfies `when`; the word otherwise. */
function replaceSuffix(
  w: string,
  rules: readonly (readonly [string, string])[],
  when: (stem: string, suffix: string) => boolean,
): string {
  for (const [suffix, replacement] of rules) {
    if (!w.endsWith(suffix)) continue
    const stem = w.slice(0, w.length - suffix.length)
    return when(stem, suffix) ? stem + replacement : w
  }
  return w
}

function step1a(w: string): string {
  if (w.endsWith('sses')) return w.slice(0, -2)
  if (w.endsWith('ies')) return w.slice(0, -2)
  if (w.endsWith('ss')) return w
  if (w.endsWith('s')) return w.slice(0, -1)
  return w
}

function step1b(w: string): string {
  if (w.endsWith('eed')) return measure(w.slice(0, -3)) > 0 ? w.slice(0, -1) : w
  let stem: string | undefined
  if (w.endsWith('ed') && hasVowel(w.slice(0, -2))) stem = w.slice(0, -2)
  else if (w.endsWith('ing') && hasVowel(w.slice(0, -3))) stem = w.slice(0, -3)
  if (stem === undefined) return w
  if (stem.endsWith('at') || stem.endsWith('bl') || stem.endsWith('iz')) return `${stem}e`
  if (endsDoubleConsonant(stem) && !/[lsz]$/.test(stem)) return stem.slice(0, -1)
  if (measure(stem) === 1 && endsCvc(stem)) return `${stem}e`
  return stem
}

function step1c(w: string): string {
  return w.endsWith('y') && hasVowel(w.slice(0, -1)) ? `${w.slice(0, -1)}i` : w
}

// Longest suffixes first within each list, so the first match is the longest.
const STEP2: readonly (readonly [string, string])[] = [
  ['ational', 'ate'],
  ['iveness', 'ive'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['ization', 'ize'],
  ['tional', 'tion'],
  ['biliti', 'ble'],
  ['ation', 'ate'],
  ['alism', 'al'],
  ['aliti', 'al'],
  ['iviti', 'ive'],
  ['entli', 'ent'],
  ['ousli', 'ous'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['izer', 'ize'],
  ['abli', 'able'],
  ['alli', 'al'],
  ['ator', 'ate'],
  ['eli', 'e'],
]
const STEP3: readonly (readonly [string, string])[] = [
  ['icate', 'ic'],
  ['ative', ''],
  ['alize', 'al'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ness', ''],
  ['ful', ''],
]
const STEP4: readonly (readonly [string, string])[] = [
  ['ement', ''],
  ['ance', ''],
  ['ence', ''],
  ['able', ''],
  ['ible', ''],
  ['ment', ''],
  ['ant', ''],
  ['ent', ''],
  ['ion', ''],
  ['ism', ''],
  ['ate', ''],
  ['iti', ''],
  ['ous', ''],
  ['ive', ''],
  ['ize', ''],
  ['al', ''],
  ['er', ''],
  ['ic', ''],
  ['ou', ''],
]

function step5(w: string): string {
  if (w.endsWith('e')) {
    const stem = w.slice(0, -1)
    const m = measure(stem)
    if (m > 1 || (m === 1 && !endsCvc(stem))) w = stem
  }
  if (measure(w) > 1 && endsDoubleConsonant(w) && w.endsWith('l')) w = w.slice(0, -1)
  return w
}

const BRITISH_ISE = /(?<=[a-z]{3})is(e|ed|es|ing|ation|ations)$/
const BRITISH_YSE = /(?<=[a-z]{2})ys(e|ed|es|ing)$/

/** The stem of a lower-case word; see the module comment. */
export function stem(word: string): string {
  let w = word.normalize('NFKD').replace(/\p{M}/gu, '')
  if (w.length <= 2 || !/^[a-z]+$/.test(w)) return w
  w = w.replace(BRITISH_ISE, 'iz$1').replace(BRITISH_YSE, 'yz$1')
  w = step1c(step1b(step1a(w)))
  w = replaceSuffix(w, STEP2, (s) => measure(s) > 0)
  w = replaceSuffix(w, STEP3, (s) => measure(s) > 0)
  w = replaceSuffix(w, STEP4, (s, suffix) => measure(s) > 1 && (suffix !== 'ion' || /[st]$/.test(s)))
  return step5(w)
}
