-- Escalation: the policy in effect is pinned to the incident when it opens; targets are encrypted at rest;
-- delivery rows carry only the shown (redacted) target and a claim time. docs/adr/0010-escalation-policy-pinning.md

-- AlterTable
ALTER TABLE "escalation_deliveries" ADD COLUMN     "claimedAt" TIMESTAMPTZ(3);

-- AlterTable (display is filled below before it becomes NOT NULL)
ALTER TABLE "escalation_targets" ADD COLUMN     "display" VARCHAR(2048),
ADD COLUMN     "encKeyId" VARCHAR(64),
ADD COLUMN     "targetEnc" TEXT,
ALTER COLUMN "target" DROP NOT NULL;

-- AlterTable
ALTER TABLE "incidents" ADD COLUMN     "escalationPolicyId" UUID;

-- AddForeignKey
ALTER TABLE "incidents" ADD CONSTRAINT "incidents_escalationPolicyId_fkey" FOREIGN KEY ("escalationPolicyId") REFERENCES "escalation_policies"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- ---------------------------------------------------------------------------------------------------------------
-- Data: secrets out of plaintext where no key is needed.
-- A webhook or Slack URL is shown as scheme://host[:port]/… (userinfo dropped); an email address in full.
-- ---------------------------------------------------------------------------------------------------------------
CREATE FUNCTION escalation_display_target(channel "DeliveryChannel", target TEXT) RETURNS TEXT
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN channel = 'email' THEN target
    WHEN target ~ '^[A-Za-z][A-Za-z0-9+.-]*://' THEN
      lower(regexp_replace(target, '^([A-Za-z][A-Za-z0-9+.-]*://)([^/?#@]*@)?([^/?#]*).*$', '\1\3')) || '/…'
    ELSE '…'
  END
$$;

-- Targets: the display form now; the plaintext stays in "target" until a worker (which has ENCRYPTION_KEY)
-- encrypts it into "targetEnc" and clears it (encryptLegacyTargets, run by the escalation sweeper).
UPDATE "escalation_targets" SET "display" = escalation_display_target("channel", "target");
ALTER TABLE "escalation_targets" ALTER COLUMN "display" SET NOT NULL;

-- Delivery rows kept a copy of the full target: replaced by the display form (the page is sent from the target row).
UPDATE "escalation_deliveries" SET "target" = escalation_display_target("channel", "target") WHERE "channel" <> 'email';

DROP FUNCTION escalation_display_target("DeliveryChannel", TEXT);

-- Exactly one form of the target: ciphertext with its key id, or (rows from before this migration only) the
-- plaintext; a new row is always ciphertext. A trigger rather than a CHECK: the WebAssembly schema engine behind
-- `npm run db:drift` cannot read CHECK constraints (it panics), and triggers are invisible to it.
CREATE FUNCTION escalation_targets_one_form() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF num_nonnulls(NEW."target", NEW."targetEnc") <> 1 OR (NEW."targetEnc" IS NULL) <> (NEW."encKeyId" IS NULL)
     OR (TG_OP = 'INSERT' AND NEW."targetEnc" IS NULL) THEN
    RAISE EXCEPTION 'escalation_targets: a target is stored encrypted (targetEnc and encKeyId), never as plaintext'
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER "escalation_targets_one_form" BEFORE INSERT OR UPDATE ON "escalation_targets"
  FOR EACH ROW EXECUTE FUNCTION escalation_targets_one_form();

-- A pending delivery claimed this long ago is reconciled by the sweeper: find pending rows without a scan.
CREATE INDEX "escalation_deliveries_pending_idx" ON "escalation_deliveries" ("createdAt") WHERE "status" = 'pending';

-- ---------------------------------------------------------------------------------------------------------------
-- The policy in effect, pinned when the incident opens: the monitor's own, else the workspace default (a policy
-- of the incident's own workspace only), else none. A trigger, so every path that opens an incident pins it in
-- the same statement, and later assignments never change a running ladder.
-- ---------------------------------------------------------------------------------------------------------------
CREATE FUNCTION incidents_pin_escalation_policy() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."escalationPolicyId" IS NULL THEN
    NEW."escalationPolicyId" := COALESCE(
      (SELECT p."id" FROM "monitors" m JOIN "escalation_policies" p ON p."id" = m."escalationPolicyId" AND p."workspaceId" = m."workspaceId"
        WHERE m."id" = NEW."monitorId" AND m."workspaceId" = NEW."workspaceId"),
      (SELECT p."id" FROM "workspaces" w JOIN "escalation_policies" p ON p."id" = w."defaultEscalationPolicyId" AND p."workspaceId" = w."id"
        WHERE w."id" = NEW."workspaceId")
    );
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER "incidents_pin_escalation_policy" BEFORE INSERT ON "incidents"
  FOR EACH ROW EXECUTE FUNCTION incidents_pin_escalation_policy();

-- Existing incidents: the policy whose steps already paged for it (the earliest delivery), else the policy in
-- effect now by the same rule.
UPDATE "incidents" i SET "escalationPolicyId" = COALESCE(
  (SELECT s."policyId" FROM "escalation_deliveries" d JOIN "escalation_steps" s ON s."id" = d."stepId"
    WHERE d."incidentId" = i."id" ORDER BY d."createdAt", d."id" LIMIT 1),
  (SELECT p."id" FROM "monitors" m JOIN "escalation_policies" p ON p."id" = m."escalationPolicyId" AND p."workspaceId" = m."workspaceId"
    WHERE m."id" = i."monitorId" AND m."workspaceId" = i."workspaceId"),
  (SELECT p."id" FROM "workspaces" w JOIN "escalation_policies" p ON p."id" = w."defaultEscalationPolicyId" AND p."workspaceId" = w."id"
    WHERE w."id" = i."workspaceId")
);
