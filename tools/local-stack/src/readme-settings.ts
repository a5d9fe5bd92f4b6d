import { SERVICE_NAMES, type ServiceName } from '@svc/contracts';

/** One row of the README's settings table ("Configuration"): every name it documents, and who reads them. */
export interface ReadmeSetting {
  /** The names of the row (`PORT`, `HOST`: two). */
  names: string[];
  /** The services of the "used by" column: `all` and `every service` are the five, `pipeline` the three workers. */
  usedBy: ServiceName[];
  /** The "default" column says the setting is required. */
  required: boolean;
}

const HEADER = '| variable | used by | default | meaning |';
const WORKERS: readonly ServiceName[] = ['extractor', 'stager', 'loader'];

function servicesOf(usedBy: string): ServiceName[] {
  const found = new Set<ServiceName>();
  for (const part of usedBy.split(',').map((text) => text.trim())) {
    if (part === 'all' || part === 'every service') SERVICE_NAMES.forEach((name) => found.add(name));
    else if (part === 'pipeline') WORKERS.forEach((name) => found.add(name));
    else if ((SERVICE_NAMES as readonly string[]).includes(part)) found.add(part as ServiceName);
  }
  return SERVICE_NAMES.filter((name) => found.has(name));
}

/** The settings table of README.md: its rows from the header to the first line that is not a row. */
export function readmeSettings(readme: string): ReadmeSetting[] {
  const lines = readme.split('\n');
  const start = lines.indexOf(HEADER);
  if (start < 0) throw new Error(`README.md has no settings table (a line "${HEADER}")`);
  const rows = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line);
  }
  return rows.map((row) => {
    const [variable = '', usedBy = '', defaultText = ''] = row.slice(1, -1).split(' | ').map((cell) => cell.trim());
    return {
      names: [...variable.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1] ?? ''),
      usedBy: servicesOf(usedBy),
      required: /\brequired\b/.test(defaultText),
    };
  });
}

/** The row documenting `name`; a `<NAME>_FILE` is its `<NAME>` (README: any setting can be given as a file). */
export function readmeSetting(settings: readonly ReadmeSetting[], name: string): ReadmeSetting | undefined {
  const base = name.endsWith('_FILE') ? name.slice(0, -'_FILE'.length) : name;
  return settings.find((setting) => setting.names.includes(name)) ?? settings.find((setting) => setting.names.includes(base));
}
