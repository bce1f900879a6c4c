/** Micro-units as credit units with all six decimals (`-1.500000`): exact, no float in between. */
export function creditAmount(micro: bigint): string {
  const sign = micro < 0n ? "-" : "";
  const magnitude = micro < 0n ? -micro : micro;
  return `${sign}${magnitude / 1_000_000n}.${(magnitude % 1_000_000n).toString().padStart(6, "0")}`;
}
