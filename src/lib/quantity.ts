/**
 * Kubernetes resource quantities ("250m", "1.5", "128Mi", "1e3") as plain numbers of base units,
 * and back. Numbers are doubles: exact for CPU in millicores and memory up to petabytes, which
 * is all node capacity arithmetic needs. Pure.
 */
const SUFFIXES: Readonly<Record<string, number>> = {
  '': 1, n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

const QUANTITY = /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:([eE][+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$/;

/** The quantity in base units, or undefined if it is not a valid quantity. */
export function parseQuantity(text: string | number | undefined): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) ? text : undefined;
  if (text === undefined) return undefined;
  const match = QUANTITY.exec(text.trim());
  if (!match) return undefined;
  const [, digits = '', exponent, suffix = ''] = match;
  const base = Number(digits);
  const scale = exponent !== undefined ? 10 ** Number(exponent.slice(1)) : (SUFFIXES[suffix] ?? 1);
  const value = base * scale;
  return Number.isFinite(value) ? value : undefined;
}

/**
 * A quantity string for `value` base units: a whole number when it is one (after rounding away
 * floating-point noise), else millis rounded down (never promising more than there is).
 */
export function formatQuantity(value: number): string {
  const v = Math.max(0, value);
  const milli = Math.floor(Math.round(v * 1e6) / 1e3);
  if (milli % 1000 === 0) return BigInt(milli / 1000).toString();
  return `${milli}m`;
}
