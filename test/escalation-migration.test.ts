/**
 * The migration that pins escalation policies and takes targets out of plaintext, run on a database that already
 * holds rows written before it: a scratch database of its own, migrated to the state before, filled the way the
 * old code filled it, then migrated to the end.
 */
import { describe, expect, it } from '@jest/globals';
import { decryptSecret, encryptLegacyTargets, parseConfig } from '@statusvane/shared';
import { applyMigrations } from '../scripts/migrate.js';
import { dumpDatabase } from './support/db-dump.js';
import { scratchDatabaseBefore } from './support/scratch-db.js';

const MIGRATION = '20261123120844_escalation_pinning_and_target_secrets';
const scratch = scratchDatabaseBefore('escmig', MIGRATION);
const scratchUrl = scratch.url;

const SECRET = 'xoxb-secret-5f1c2d';
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe(`migration ${MIGRATION}`, () => {
  it('redacts stored delivery targets, keeps target plaintext only until a worker encrypts it, and pins every incident', async () => {
    const ws = id(1);
    const [policyA, policyB] = [id(10), id(20)];
    const [stepA, stepB] = [id(11), id(21)];
    const [hookA, mailA, hookB] = [id(12), id(13), id(22)];
    const [component, monitor] = [id(2), id(3)];
    const [pagedBefore, monitorOpen, manual] = [id(100), id(101), id(102)];
    const q = scratch.query;
    // As the old code wrote them: plaintext targets, delivery rows with a copy of the full URL.
    await q(`INSERT INTO workspaces (id, slug, name) VALUES ($1, 'mig', 'Mig')`, [ws]);
    await q(`INSERT INTO escalation_policies (id, "workspaceId", name) VALUES ($1, $3, 'A'), ($2, $3, 'B')`, [
      policyA,
      policyB,
      ws,
    ]);
    await q(`UPDATE workspaces SET "defaultEscalationPolicyId" = $1 WHERE id = $2`, [policyA, ws]);
    await q(
      `INSERT INTO escalation_steps (id, "policyId", position, "delayMinutes") VALUES ($1, $2, 0, 0), ($3, $4, 0, 0)`,
      [stepA, policyA, stepB, policyB],
    );
    await q(
      `INSERT INTO escalation_targets (id, "stepId", position, channel, target) VALUES
        ($1, $2, 0, 'slack', $3), ($4, $2, 1, 'email', 'oncall@example.test'), ($5, $6, 0, 'webhook', $7)`,
      [
        hookA,
        stepA,
        `https://Hooks.Slack.example:443/services/T0/B0/${SECRET}`,
        mailA,
        hookB,
        stepB,
        `http://user:pw@hooks.example.test:8080/in/${SECRET}?sig=${SECRET}`,
      ],
    );
    await q(`INSERT INTO components (id, "workspaceId", name) VALUES ($1, $2, 'API')`, [component, ws]);
    await q(
      `INSERT INTO monitors (id, "workspaceId", "componentId", name, "updatedAt", "escalationPolicyId") VALUES ($1, $2, $3, 'API', now(), $4)`,
      [monitor, ws, component, policyB],
    );
    // Paged under policy A (the default then), before the monitor was given policy B.
    await q(
      `INSERT INTO incidents (id, "workspaceId", "monitorId", title, status, "resolvedAt") VALUES ($1, $2, $3, 'old', 'resolved', now())`,
      [pagedBefore, ws, monitor],
    );
    await q(
      `INSERT INTO escalation_deliveries (id, "incidentId", "stepId", "targetId", channel, target, status) VALUES
        ($1, $2, $3, $4, 'slack', $5, 'sent'), ($6, $2, $3, $7, 'email', 'oncall@example.test', 'sent')`,
      [id(200), pagedBefore, stepA, hookA, `https://Hooks.Slack.example:443/services/T0/B0/${SECRET}`, id(201), mailA],
    );
    await q(
      `INSERT INTO incidents (id, "workspaceId", "monitorId", "openMonitorId", title) VALUES ($1, $2, $3, $3, 'open')`,
      [monitorOpen, ws, monitor],
    );
    await q(`INSERT INTO incidents (id, "workspaceId", title, source) VALUES ($1, $2, 'manual', 'manual')`, [
      manual,
      ws,
    ]);

    // (Later migrations of other features may follow it.)
    expect((await applyMigrations(scratchUrl)).applied).toContain(MIGRATION);

    // Pinned: the policy that already paged; else the monitor's own; else the workspace default.
    const pins = await q(`SELECT id, "escalationPolicyId" AS p FROM incidents ORDER BY id`);
    expect(pins.rows).toEqual([
      { id: pagedBefore, p: policyA },
      { id: monitorOpen, p: policyB },
      { id: manual, p: policyA },
    ]);
    // Delivery rows: the shown form only (lower-cased scheme and host, userinfo and path gone); email as it was.
    const deliveries = await q(`SELECT channel, target FROM escalation_deliveries ORDER BY id`);
    expect(deliveries.rows).toEqual([
      { channel: 'slack', target: 'https://hooks.slack.example:443/…' },
      { channel: 'email', target: 'oncall@example.test' },
    ]);
    // Targets: display filled; the plaintext waits for a process that has the key (the SQL migration has none).
    const targets = await q(`SELECT id, display, target, "targetEnc" FROM escalation_targets ORDER BY id`);
    expect(targets.rows.map((t) => [t.id, t.display, t.targetEnc])).toEqual([
      [hookA, 'https://hooks.slack.example:443/…', null],
      [mailA, 'oncall@example.test', null],
      [hookB, 'http://hooks.example.test:8080/…', null],
    ]);
    expect(targets.rows.every((t) => t.target !== null)).toBe(true);

    // A worker's sweep encrypts them with the deployment key and clears the plaintext.
    const keyring = parseConfig({ ...process.env, DATABASE_URL: scratchUrl }).encryption;
    const prisma = scratch.prisma();
    expect(await encryptLegacyTargets(prisma, keyring.current)).toBe(3);
    expect(await encryptLegacyTargets(prisma, keyring.current)).toBe(0);
    const sealed = await q(`SELECT id, display, target, "targetEnc", "encKeyId" FROM escalation_targets ORDER BY id`);
    expect(sealed.rows.map((t) => [t.id, t.target, t.encKeyId])).toEqual([
      [hookA, null, keyring.current.id],
      [mailA, null, keyring.current.id],
      [hookB, null, keyring.current.id],
    ]);
    expect(sealed.rows.map((t) => decryptSecret(t.targetEnc, t.encKeyId, keyring))).toEqual([
      `https://Hooks.Slack.example:443/services/T0/B0/${SECRET}`,
      'oncall@example.test',
      `http://user:pw@hooks.example.test:8080/in/${SECRET}?sig=${SECRET}`,
    ]);
    expect(sealed.rows[0].display).toBe('https://hooks.slack.example/…');
    const dump = await dumpDatabase(prisma);
    expect(dump).toContain(hookA);
    expect(dump).not.toContain(SECRET);

    // From now on: a new incident is pinned as it is inserted, and a plaintext target is refused.
    await q(`UPDATE incidents SET status = 'resolved', "openMonitorId" = NULL WHERE id = $1`, [monitorOpen]);
    const fresh = await q(
      `INSERT INTO incidents (id, "workspaceId", "monitorId", "openMonitorId", title) VALUES ($1, $2, $3, $3, 'new') RETURNING "escalationPolicyId" AS p`,
      [id(103), ws, monitor],
    );
    expect(fresh.rows).toEqual([{ p: policyB }]);
    await expect(
      q(
        `INSERT INTO escalation_targets (id, "stepId", position, channel, display, target) VALUES ($1, $2, 5, 'slack', 'x', 'https://x/y')`,
        [id(14), stepA],
      ),
    ).rejects.toThrow(/never as plaintext/);
  });
});
