import { request as httpRequest } from 'node:http';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { Subjects } from '@svc/contracts';
import { connectNats, NatsRequester } from '@svc/messaging';
import { ADMIN_KEY, TestStack } from '@svc/system-testing';
import { waitUntil } from '@svc/testing';
import { launchChromium } from './console/browser';
import { BIG_TABLE, createConsoleSource, HOSTILE_TABLE } from './console/source-tables';
import { POSTGRES_TO_POSTGRES } from './engine-pairs';
import { describeReplication, recentWarnings } from './replication-api';

/*
 * The page's globals, for the functions this spec runs inside the page (page.evaluate, waitForFunction): the Node
 * type check has no DOM library, and adding it would change the types of every server file.
 */
interface PageElement {
  textContent: string | null;
  getAttribute(name: string): string | null;
}
declare const document: { querySelector(selector: string): PageElement | null; querySelectorAll(selector: string): ArrayLike<PageElement> };
declare const window: { location: { hash: string }; sessionStorage: object; localStorage: { length: number } };

/** Where the pages' screenshots go: docs/console when refreshing the README's pictures, else tmp/. */
const SCREENSHOT_DIR = resolve(process.env['CONSOLE_SCREENSHOT_DIR'] ?? join(__dirname, '..', '..', '..', 'tmp', 'console-screenshots'));
/** About 90 MB: dozens of 1 MB seed parts, so the seed's progress can be seen to move. */
const BIG_ROWS = 400_000;
const BIG = `[public].[${BIG_TABLE}]`;
const HOSTILE = `[public].[${HOSTILE_TABLE}]`;
/** A value written into one warehouse row by hand: validation must name the row's key, and never show this. */
const CORRUPTED_PAYLOAD = 'corrupted by the console test';
const CORRUPTED_ID = 4242;

/** GET (or another method) exactly as written: Node sends the path without normalising `..` or encodings. */
function rawRequest(baseUrl: string, path: string, method = 'GET'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(baseUrl);
  return new Promise((done, fail) => {
    const outgoing = httpRequest({ host: url.hostname, port: url.port, path, method }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => done({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    outgoing.on('error', fail);
    outgoing.end();
  });
}

/**
 * The operator console in real Chromium against the real system (issue 12): every call it makes is a signed API
 * request from the page; a PostgreSQL replication is created through its form and watched while it seeds.
 */
describe('operator console in Chromium', () => {
  const stack = new TestStack({
    workers: ['extractor', 'stager', 'loader'],
    env: { SCHEDULER_TICK_MS: '100', IDLE_CYCLE_DELAY_MS: '100', WORKER_CONCURRENCY: '2', ROW_CHUNK_BYTES: '65536', SEED_PART_MB: '1' },
  });
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let readOnlyKey: { accessKeyId: string; secretKey: string };
  let replicationId = '';
  const dialogs: string[] = [];
  const pageErrors: string[] = [];
  const cspViolations: string[] = [];

  beforeAll(async () => {
    // First, so that a missing Chromium fails the suite before minutes of setup.
    browser = await launchChromium();
    await stack.start();
    await createConsoleSource(stack.source.url, BIG_ROWS);
    const connection = await connectNats(stack.nats.url, 'console-e2e');
    try {
      const reply = await new NatsRequester(connection, 5000).request(Subjects.registryCreateAccessKey, {
        allowedOperations: ['ListWarehouseReplications', 'DescribeWarehouseReplication'],
        // A monitoring key: it reads every replication, the admin's included.
        replicationScope: 'All',
      });
      if (!reply.ok) throw new Error(reply.error.messages.join('; '));
      readOnlyKey = { accessKeyId: reply.value.accessKeyId, secretKey: reply.value.secretKey };
    } finally {
      await connection.close();
    }
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await stack.stop();
  }, 60_000);

  const shot = (name: string) => page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
  const go = (hash: string) => page.evaluate((target) => (window.location.hash = target), hash);

  async function signIn(key: { accessKeyId: string; secretKey: string }): Promise<void> {
    await page.goto(`${stack.baseUrl}/console/`);
    await page.fill('#access-key-id', key.accessKeyId);
    await page.fill('#secret-key', key.secretKey);
    await page.click('form#sign-in button[type=submit]');
    await page.waitForSelector('#key-id');
    expect(await page.textContent('#key-id')).toBe(key.accessKeyId);
  }

  it('is served with a CSP that forbids inline script, nosniff, the right types, and nothing outside its folder', async () => {
    const index = await rawRequest(stack.baseUrl, '/console/');
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(index.headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect(index.headers['content-security-policy']).not.toMatch(/unsafe-inline/);
    expect(index.headers['x-content-type-options']).toBe('nosniff');
    expect((await rawRequest(stack.baseUrl, '/console/js/apps/console/src/main.js')).headers['content-type']).toBe('text/javascript; charset=utf-8');
    // The signing steps and contracts the page shares with the server, compiled beside it by its browser build.
    for (const shared of ['/console/js/libs/signing/src/core/index.js', '/console/js/libs/contracts/src/browser.js']) {
      expect((await rawRequest(stack.baseUrl, shared)).headers['content-type']).toBe('text/javascript; charset=utf-8');
    }
    expect((await rawRequest(stack.baseUrl, '/console')).status).toBe(308);
    for (const path of ['/console/../package.json', '/console/%2e%2e/package.json', '/console/js/../../../package.json', '/console/..%2f..%2fpackage.json', '/console/js/', '/console/%2e%2e%2f%2e%2e%2f%2e%2e%2fapps/api-gateway/src/main.js']) {
      const reply = await rawRequest(stack.baseUrl, path);
      expect({ path, status: reply.status }).toEqual({ path, status: 404 });
      expect(reply.body).not.toMatch(/"dependencies"|startGateway/);
    }
    expect((await rawRequest(stack.baseUrl, '/console/', 'POST')).status).not.toBe(200);
  });

  it('signs in with an access key kept in sessionStorage only, signing every call in the page', async () => {
    await page.goto(`${stack.baseUrl}/console/`);
    await shot('sign-in');
    const apiCalls: Promise<string>[] = [];
    const collect = (request: Request) => {
      if (new URL(request.url()).pathname.startsWith('/api/')) apiCalls.push(request.allHeaders().then((headers) => headers['authorization'] ?? `unsigned: ${request.url()}`));
    };
    page.on('request', collect);
    await signIn(ADMIN_KEY);
    await page.waitForSelector('#replications');
    page.off('request', collect);
    const signed = await Promise.all(apiCalls);
    expect(signed.length).toBeGreaterThan(0);
    expect(signed.filter((header) => !header.startsWith(`SVC4-HMAC-SHA256 Credential=${ADMIN_KEY.accessKeyId}/`))).toEqual([]);
    expect(await context.cookies()).toEqual([]);
    const stored = await page.evaluate(() => ({ session: JSON.stringify(window.sessionStorage), local: window.localStorage.length }));
    expect(stored.session).toContain(ADMIN_KEY.accessKeyId);
    expect(stored.local).toBe(0);
  });

  /** The Create form filled as a PostgreSQL → PostgreSQL replication of the stack's databases. */
  async function fillCreateForm(bucketName: string): Promise<void> {
    const warehouse = POSTGRES_TO_POSTGRES.warehouse(stack);
    const fields: Record<string, string> = {
      parallelTablesLimit: '2',
      'source.connectionString': stack.source.url,
      'staging.connectionString': stack.staging.url,
      'warehouse.accessKey': stack.s3.accessKeyId,
      'warehouse.secretKey': stack.s3.secretAccessKey,
      'warehouse.bucketName': bucketName,
      'warehouse.bucketFolderName': '/console',
      'warehouse.regionEndpoint': 'us-east-1',
      'warehouse.retentionDays': '2',
      'warehouse.url': warehouse.url,
      'warehouse.databaseSchema': 'dw',
      'warehouse.databaseName': warehouse.databaseName,
      'warehouse.username': warehouse.username,
      'warehouse.password': warehouse.password,
      tablesToInclude: 'All',
    };
    for (const [name, value] of Object.entries(fields)) await page.fill(`#replication-form [name="${name}"]`, value);
  }

  it("shows the server's field error beside the field of a Create with an invalid bucket", async () => {
    await go('#/create');
    await page.waitForSelector('#replication-form');
    await fillCreateForm('Not A Bucket');
    await page.click('#replication-form button[type=submit]');
    const error = page.locator('.field[data-field="Warehouse\\\\BucketName"] .field-error');
    await error.waitFor({ timeout: 20_000 });
    expect(await error.textContent()).toMatch(/invalid value 'Not A Bucket'.*bucket name/i);
    expect(await page.getAttribute('#replication-form [name="warehouse.bucketName"]', 'aria-invalid')).toBe('true');
    // What was typed stays, so only the bucket needs fixing.
    expect(await page.inputValue('#replication-form [name="warehouse.databaseSchema"]')).toBe('dw');
    await shot('create-field-error');
  }, 60_000);

  it("links a field to its row of the API reference, which the gateway serves under /console/ with the console's CSP", async () => {
    const href = await page.getAttribute('.field[data-field="Warehouse\\\\BucketName"] a.reference-link', 'href');
    expect(href).toBe('./api-reference.html#createwarehousereplication-warehouse-bucketname');
    const served = await rawRequest(stack.baseUrl, '/console/api-reference.html');
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(served.headers['content-security-policy']).toMatch(/script-src 'self'/);
    // In a tab of its own, as the link opens it: the form and its session stay as they are.
    const reference = await context.newPage();
    const violations: string[] = [];
    reference.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    try {
      await reference.goto(new URL(href ?? '', `${stack.baseUrl}/console/`).toString());
      const row = reference.locator('tr:has(#createwarehousereplication-warehouse-bucketname)');
      expect(await row.textContent()).toMatch(/A bucket name is 3-63 characters/);
      expect(await reference.locator('h2#createwarehousereplication').count()).toBe(1);
      expect(violations).toEqual([]);
      await reference.screenshot({ path: join(SCREENSHOT_DIR, 'api-reference.png') });
    } finally {
      await reference.close();
    }
  }, 60_000);

  it("creates the replication and shows the seed's progress bar moving, with rate and ETA", async () => {
    await page.fill('#replication-form [name="warehouse.bucketName"]', 'console-e2e');
    await page.click('#replication-form button[type=submit]');
    await page.waitForFunction(() => /^#\/replications\/[0-9a-f-]{36}$/.test(window.location.hash), null, { timeout: 30_000 });
    replicationId = (await page.evaluate(() => window.location.hash)).replace('#/replications/', '');
    const bar = page.locator(`tr[data-table="${BIG}"] progress`);
    await bar.waitFor({ timeout: 60_000 });
    const first = Number(await bar.getAttribute('value'));
    await page.waitForFunction(
      ({ selector, from }) => Number(document.querySelector(selector)?.getAttribute('value') ?? -1) > from,
      { selector: `tr[data-table="${BIG}"] progress`, from: first },
      { timeout: 90_000 },
    );
    const row = page.locator(`tr[data-table="${BIG}"]`);
    expect(await row.locator('.progress-numbers').textContent()).toMatch(/^[\d,]+ \/ [\d,]+ rows \(\d+%\)$/);
    await page.waitForFunction((selector) => /rows\/s/.test(document.querySelector(selector)?.textContent ?? ''), `tr[data-table="${BIG}"] .progress-rate`, { timeout: 20_000 });
    expect(await row.locator('.badge').textContent()).toMatch(/Seeding|Pending/);
    await shot('replication-seeding');
  }, 180_000);

  it('renders a table named like markup as text, and runs nothing from it', async () => {
    const cell = page.locator(`tr[data-table="${HOSTILE}"] td.table-name`);
    await cell.waitFor({ timeout: 30_000 });
    expect(await cell.textContent()).toBe(HOSTILE);
    expect(await page.evaluate(() => document.querySelectorAll('img').length)).toBe(0);
    expect(await page.evaluate(() => document.querySelectorAll('[onerror]').length)).toBe(0);
    expect(dialogs).toEqual([]);
  }, 60_000);

  it('opens a table: its phase, rows, lag and its history charted from GetReplicationMetrics on a page of its own', async () => {
    await page.click(`tr[data-table="${BIG}"] td.table-name a`);
    await page.waitForSelector('#table .table-detail');
    expect(await page.textContent('.breadcrumb')).toContain(BIG);
    expect(await page.textContent('#table .facts')).toMatch(/Phase.*Rows seeded.*Lag.*Last cycle.*Last error/s);
    // The seed's rows are in the table's history: charted, never "no history".
    await page.waitForSelector('#history svg.chart', { timeout: 60_000 });
    expect(await page.locator('#history .no-history').count()).toBe(0);
    await shot('table');
  }, 90_000);

  it('turns DataReplication off and on', async () => {
    await go(`#/replications/${replicationId}`);
    const toggle = page.locator('#toggle-data-replication');
    await toggle.waitFor();
    expect(await toggle.textContent()).toBe('Turn DataReplication off');
    await toggle.click();
    await page.waitForFunction(() => document.querySelector('#toggle-data-replication')?.textContent === 'Turn DataReplication on', null, { timeout: 20_000 });
    expect((await describeReplication(stack, replicationId)).configuration.dataReplication).toBe(false);
    await page.waitForFunction(() => document.querySelector('#summary .badge')?.textContent === 'Stopped', null, { timeout: 20_000 });
    await page.click('#toggle-data-replication');
    await page.waitForFunction(() => document.querySelector('#toggle-data-replication')?.textContent === 'Turn DataReplication off', null, { timeout: 20_000 });
    expect((await describeReplication(stack, replicationId)).configuration.dataReplication).toBe(true);
    await page.waitForFunction(() => document.querySelector('#summary .badge')?.textContent === 'Running', null, { timeout: 20_000 });
  }, 60_000);

  it('never shows a secret: the stored configuration is masked', async () => {
    await page.waitForSelector('#configuration table.configuration');
    const shown = (await page.textContent('main')) ?? '';
    expect(shown).toContain('********');
    for (const secret of [stack.s3.secretAccessKey, POSTGRES_TO_POSTGRES.warehouse(stack).password, stack.source.url]) expect(shown).not.toContain(secret);
    await shot('replication');
  });

  it('lists the replication with its status, tables by phase, worst lag and alerts', async () => {
    await go('#/');
    const row = page.locator(`tr[data-replication-id="${replicationId}"]`);
    await row.waitFor({ timeout: 20_000 });
    await page.waitForFunction((id) => /Seeding|Tracking|Pending/.test(document.querySelector(`tr[data-replication-id="${id}"] td.phases`)?.textContent ?? ''), replicationId, { timeout: 20_000 });
    expect(await row.locator('.badge').first().textContent()).toBe('Running');
    await shot('replications');
  }, 60_000);

  /** Each table of the validation panel by its state, once it shows a validation other than `previousId` in which `done` holds. */
  async function validationStates(previousId: string | null, timeout: number, done: (states: Record<string, string>) => boolean): Promise<Record<string, string>> {
    const read = () =>
      page.evaluate(() => {
        const shown = document.querySelector('#validation [data-validation-id]')?.getAttribute('data-validation-id') ?? null;
        const rows = Array.from(document.querySelectorAll('#validation tr[data-table]'));
        return { shown, states: Object.fromEntries(rows.map((row) => [row.getAttribute('data-table') ?? '', row.getAttribute('data-state') ?? ''])) };
      });
    let last = await read();
    await waitUntil(
      async () => {
        last = await read();
        return last.shown !== null && last.shown !== previousId && done(last.states);
      },
      timeout,
      'the validation panel',
    ).catch(async (error: unknown) => {
      throw new Error(`${String(error)}; it shows ${JSON.stringify(last)}: ${(await page.textContent('#validation')) ?? ''}`);
    });
    return last.states;
  }
  const shownValidationId = () => page.evaluate(() => document.querySelector('#validation [data-validation-id]')?.getAttribute('data-validation-id') ?? null);
  const allFinal = (states: Record<string, string>) => Object.keys(states).length > 0 && Object.values(states).every((state) => !/Pending|Running|Repairing/.test(state));

  async function validateFromButton(tables: string): Promise<string | null> {
    const previous = await shownValidationId();
    await page.fill('#validate-form [name="tablesToInclude"]', tables);
    await page.click('#validate-form button[type=submit]');
    await page.waitForFunction(() => /^Validation [0-9a-f-]{36} started\.$/.test(document.querySelector('#validation .notice.ok')?.textContent ?? ''), null, { timeout: 20_000 });
    return previous;
  }

  it('validates every table from the Validate button, and shows each one Validated with its rows compared', async () => {
    await go(`#/replications/${replicationId}`);
    await page.waitForSelector('#validation .empty');
    expect(await page.textContent('#validation .empty')).toMatch(/^Not validated yet/);
    expect(await page.isDisabled('#repair-validation')).toBe(true);
    // A table still seeding would be Skipped: both are compared once they track changes.
    await page
      .waitForFunction(
        (names) => names.every((name) => document.querySelector(`#tables tr[data-table="${name}"] .badge`)?.textContent === 'Tracking'),
        [BIG, HOSTILE],
        { timeout: 240_000 },
      )
      .catch(async (error: unknown) => {
        const tables = (await describeReplication(stack, replicationId)).tables;
        throw new Error(`${String(error)}\ntables: ${JSON.stringify(tables)}\n${recentWarnings(stack, 40).join('\n')}`);
      });
    const previous = await validateFromButton('');
    expect(await validationStates(previous, 120_000, allFinal)).toEqual({ [BIG]: 'Validated', [HOSTILE]: 'Validated' });
    expect(await page.textContent(`#validation tr[data-table="${BIG}"] td.validation-progress`)).toBe(`${BIG_ROWS.toLocaleString('en-US')} rows compared`);
    expect(await page.textContent(`#validation tr[data-table="${BIG}"] td.differing-keys`)).toBe('—');
    expect(await page.isDisabled('#repair-validation')).toBe(true);
    await shot('validation');
  }, 420_000);

  it("shows the server's refusal of a table that is not replicated beside the TablesToInclude field, with its rule", async () => {
    await page.fill('#validate-form [name="tablesToInclude"]', '[public].[nope]');
    await page.click('#validate-form button[type=submit]');
    const error = page.locator('#validate-form .field[data-field="TablesToInclude"] .field-error');
    await error.waitFor({ timeout: 20_000 });
    expect(await error.textContent()).toMatch(/\[public\]\.\[nope\].*is not part of replication/);
    expect(await page.getAttribute('#validate-form .field[data-field="TablesToInclude"] a.reference-link', 'href')).toBe('./api-reference.html#startreplicationvalidation-tablestoinclude');
  }, 60_000);

  it('names the key of a warehouse row corrupted by hand, repairs it after confirmation, and validates it again', async () => {
    const warehouse = await POSTGRES_TO_POSTGRES.openWarehouse(stack);
    try {
      await warehouse.query(`UPDATE dw.${BIG_TABLE} SET payload = $1 WHERE id = $2`, [CORRUPTED_PAYLOAD, CORRUPTED_ID]);
    } finally {
      await warehouse.close();
    }
    let previous = await validateFromButton(BIG);
    expect(await validationStates(previous, 120_000, allFinal)).toEqual({ [BIG]: 'Mismatched' });
    const row = `#validation tr[data-table="${BIG}"]`;
    expect(await page.textContent(`${row} td.differing-keys`)).toBe(`id=${CORRUPTED_ID} different`);
    expect([await page.textContent(`${row} td.missing-keys`), await page.textContent(`${row} td.extra-keys`), await page.textContent(`${row} td.different-keys`)]).toEqual(['0', '0', '1']);
    // Keys only: the row's other values never reach the page.
    expect(await page.textContent('main')).not.toContain(CORRUPTED_PAYLOAD);
    await shot('validation-mismatched');

    const repairedId = await shownValidationId();
    await page.click('#repair-validation');
    await page.waitForSelector('#repair-confirmation');
    expect(await page.textContent('#repair-confirmation li')).toBe(BIG);
    await page.click('#confirm-repair');
    await page.waitForFunction(() => /^Repair queued for /.test(document.querySelector('#validation .notice.ok')?.textContent ?? ''), null, { timeout: 20_000 });
    // Same validation, its table Repaired once its keys went through a change cycle and compared equal.
    await waitUntil(async () => (await page.getAttribute(`${row}`, 'data-state')) === 'Repaired', 180_000, `${BIG} to be Repaired`).catch(async (error: unknown) => {
      throw new Error(`${String(error)}: ${(await page.textContent('#validation')) ?? ''}`);
    });
    expect(await shownValidationId()).toBe(repairedId);
    expect(await page.textContent(`${row} .reason`)).toMatch(/key\(s\) applied again through a change cycle, then compared equal/);
    expect(await page.isDisabled('#repair-validation')).toBe(true);

    previous = await validateFromButton('');
    expect(await validationStates(previous, 120_000, allFinal)).toEqual({ [BIG]: 'Validated', [HOSTILE]: 'Validated' });

    // A table's own page shows its row of the latest validation, and Validate there names the table.
    await page.click(`#tables tr[data-table="${BIG}"] td.table-name a`);
    await page.waitForSelector(`#table .table-detail`);
    expect(await validationStates(null, 20_000, allFinal)).toEqual({ [BIG]: 'Validated' });
    expect(await page.inputValue('#validate-form [name="tablesToInclude"]')).toBe(BIG);
    await go(`#/replications/${replicationId}`);
  }, 420_000);

  it("shows a read-only key every action disabled with the gateway's reason", async () => {
    await page.click('#sign-out');
    await signIn(readOnlyKey);
    expect(await page.textContent('header')).toContain('read-only key');
    const stop = page.locator('#stop-service');
    await stop.waitFor();
    expect(await stop.isDisabled()).toBe(true);
    expect(await page.textContent('[data-operation="StopReplicationService"] .denied')).toContain(`access key ${readOnlyKey.accessKeyId} is not allowed to call StopReplicationService`);
    expect(await page.isDisabled('#configuration button[type=submit]')).toBe(true);

    await go(`#/replications/${replicationId}`);
    await page.waitForSelector('#toggle-data-replication');
    expect(await page.isDisabled('#toggle-data-replication')).toBe(true);
    expect(await page.textContent('[data-operation="AlterWarehouseReplication"] .denied')).toContain('is not allowed to call AlterWarehouseReplication');
    expect(await page.isDisabled('#delete-confirmation')).toBe(true);
    expect(await page.isDisabled('#validate-form button[type=submit]')).toBe(true);
    expect(await page.textContent('#validate-form .denied')).toContain('is not allowed to call StartReplicationValidation');
    expect(await page.isDisabled('#repair-validation')).toBe(true);
    expect(await page.textContent('[data-operation="RepairReplication"] .denied')).toContain('is not allowed to call RepairReplication');
    await page.waitForSelector('#validation .body .denied');
    expect(await page.textContent('#validation .body .denied')).toContain(`access key ${readOnlyKey.accessKeyId} is not allowed to call DescribeReplicationValidation`);
    await page.waitForSelector(`tr[data-table="${BIG}"]`);
    await shot('read-only');

    await go('#/create');
    await page.waitForSelector('#replication-form');
    expect(await page.isDisabled('#replication-form button[type=submit]')).toBe(true);
    expect(await page.textContent('#replication-form .denied')).toContain('is not allowed to call CreateWarehouseReplication');
    // The sign-in probes changed nothing.
    expect((await describeReplication(stack, replicationId)).status).toBe('Running');
  }, 60_000);

  it('deletes only after the first characters of the ReplicationId are typed (names may repeat)', async () => {
    await page.click('#sign-out');
    await signIn(ADMIN_KEY);
    await go(`#/replications/${replicationId}`);
    await page.waitForSelector('#delete-form');
    const name = (await page.textContent('#delete-form code')) ?? '';
    expect(name).toBe(replicationId.slice(0, 8));
    await page.fill('#delete-confirmation', `${name}x`);
    expect(await page.isDisabled('#delete-form button')).toBe(true);
    await page.fill('#delete-confirmation', name);
    expect(await page.isDisabled('#delete-form button')).toBe(false);
    await page.click('#delete-form button');
    await page.waitForFunction(() => window.location.hash === '#/', null, { timeout: 20_000 });
    await waitUntil(async () => (await page.locator(`tr[data-replication-id="${replicationId}"]`).count()) === 0, 30_000, 'the deleted replication to leave the list');
  }, 60_000);

  it('raised no script error, no CSP violation and no dialog', () => {
    expect({ pageErrors, cspViolations, dialogs }).toEqual({ pageErrors: [], cspViolations: [], dialogs: [] });
  });
});
