// Numbers in words people read: bytes, rates, durations, latencies.

const BINARY_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function bytes(value) {
  if (value === null || value === undefined) return '—';
  let scaled = Number(value);
  let unit = 0;
  while (Math.abs(scaled) >= 1024 && unit < BINARY_UNITS.length - 1) {
    scaled /= 1024;
    unit += 1;
  }
  return `${trim(scaled)} ${BINARY_UNITS[unit]}`;
}

export function rate(bytesPerSecond) {
  return `${trim(bytesPerSecond / 1e6)} MB/s`;
}

// A headline rate: GB/s from 1 GB/s up, MB/s below (decimal units, as openssl speed's).
export function throughput(bytesPerSecond) {
  if (bytesPerSecond === null || bytesPerSecond === undefined || !Number.isFinite(Number(bytesPerSecond))) return '—';
  return bytesPerSecond >= 1e9 ? `${trim(bytesPerSecond / 1e9)} GB/s` : rate(bytesPerSecond);
}

export function nanoseconds(value) {
  if (value === null || value === undefined) return '—';
  if (value >= 1e9) return `${trim(value / 1e9)} s`;
  if (value >= 1e6) return `${trim(value / 1e6)} ms`;
  if (value >= 1e3) return `${trim(value / 1e3)} µs`;
  return `${trim(value)} ns`;
}

export function seconds(value) {
  if (value === null || value === undefined || Number.isNaN(value)) return '—';
  if (value < 60) return `${trim(value)} s`;
  const minutes = Math.floor(value / 60);
  return `${minutes} min ${Math.round(value - minutes * 60)} s`;
}

export function percent(ratio) {
  if (ratio === null || ratio === undefined || Number.isNaN(ratio)) return '—';
  return `${trim(ratio * 100)} %`;
}

export function trim(value) {
  if (value === null || value === undefined) return '—';
  const number = Number(value);
  if (!Number.isFinite(number)) return String(value);
  if (Number.isInteger(number)) return number.toLocaleString('en-US');
  const digits = Math.abs(number) >= 100 ? 0 : Math.abs(number) >= 10 ? 1 : Math.abs(number) >= 1 ? 2 : 3;
  return number.toLocaleString('en-US', { maximumFractionDigits: digits });
}

export function time(iso) {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleString();
}

export function blockSize(bytesPerBlock) {
  return bytesPerBlock >= 1024 && bytesPerBlock % 1024 === 0 ? `${bytesPerBlock / 1024} KiB` : `${bytesPerBlock} B`;
}
