-- CreateEnum
CREATE TYPE "Plan" AS ENUM ('free', 'solo', 'team', 'business');

-- CreateEnum
CREATE TYPE "Role" AS ENUM ('owner', 'admin', 'member', 'viewer');

-- CreateEnum
CREATE TYPE "TokenKind" AS ENUM ('org', 'personal', 'oauth');

-- CreateEnum
CREATE TYPE "MonitorType" AS ENUM ('http', 'heartbeat', 'tcp');

-- CreateEnum
CREATE TYPE "HttpMethod" AS ENUM ('GET', 'HEAD', 'POST');

-- CreateEnum
CREATE TYPE "MonitorStatus" AS ENUM ('pending', 'up', 'degraded', 'down', 'paused', 'maintenance');

-- CreateEnum
CREATE TYPE "CheckOutcome" AS ENUM ('up', 'degraded', 'down');

-- CreateEnum
CREATE TYPE "IncidentStatus" AS ENUM ('open', 'acknowledged', 'resolved');

-- CreateEnum
CREATE TYPE "IncidentImpact" AS ENUM ('none', 'minor', 'major', 'critical');

-- CreateEnum
CREATE TYPE "IncidentSource" AS ENUM ('monitor', 'manual');

-- CreateEnum
CREATE TYPE "DeliveryChannel" AS ENUM ('webhook', 'slack', 'email');

-- CreateEnum
CREATE TYPE "DeliveryStatus" AS ENUM ('pending', 'sent', 'failed', 'skipped');

-- CreateTable
CREATE TABLE "workspaces" (
    "id" UUID NOT NULL,
    "slug" VARCHAR(63) NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "plan" "Plan" NOT NULL DEFAULT 'free',
    "defaultEscalationPolicyId" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workspaces_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL,
    "email" VARCHAR(320) NOT NULL,
    "name" VARCHAR(200),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "memberships" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "role" "Role" NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "memberships_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_tokens" (
    "id" UUID NOT NULL,
    "kind" "TokenKind" NOT NULL,
    "name" VARCHAR(200),
    "tokenHash" CHAR(64) NOT NULL,
    "displayPrefix" VARCHAR(32) NOT NULL,
    "workspaceId" UUID,
    "role" "Role",
    "userId" UUID,
    "primaryWorkspaceId" UUID,
    "expiresAt" TIMESTAMPTZ(3),
    "revokedAt" TIMESTAMPTZ(3),
    "lastUsedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "oauth_grants" (
    "id" UUID NOT NULL,
    "tokenId" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_grants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "components" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "name" VARCHAR(120) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "components_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "monitors" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "componentId" UUID NOT NULL,
    "name" VARCHAR(120) NOT NULL,
    "type" "MonitorType" NOT NULL DEFAULT 'http',
    "target" VARCHAR(2048),
    "method" "HttpMethod" NOT NULL DEFAULT 'GET',
    "intervalSeconds" INTEGER NOT NULL DEFAULT 60,
    "timeoutMs" INTEGER NOT NULL DEFAULT 10000,
    "openThreshold" INTEGER NOT NULL DEFAULT 2,
    "resolveThreshold" INTEGER NOT NULL DEFAULT 2,
    "expectedStatusCodes" INTEGER[] DEFAULT ARRAY[]::INTEGER[],
    "keyword" VARCHAR(200),
    "keywordAbsent" VARCHAR(200),
    "degradedAfterMs" INTEGER,
    "latencyThresholdMs" INTEGER,
    "headersEnc" TEXT,
    "headerNames" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "bodyEnc" TEXT,
    "encKeyId" VARCHAR(64),
    "contentType" VARCHAR(200) NOT NULL DEFAULT 'application/json',
    "environment" VARCHAR(60) NOT NULL DEFAULT 'production',
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "jsonAssertion" JSONB,
    "graceSeconds" INTEGER NOT NULL DEFAULT 60,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "status" "MonitorStatus" NOT NULL DEFAULT 'pending',
    "pingSecret" VARCHAR(64),
    "lastPingAt" TIMESTAMPTZ(3),
    "lastPingFailAt" TIMESTAMPTZ(3),
    "lastCheckedAt" TIMESTAMPTZ(3),
    "consecutiveFailures" INTEGER NOT NULL DEFAULT 0,
    "consecutivePasses" INTEGER NOT NULL DEFAULT 0,
    "escalationPolicyId" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "monitors_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "status_pages" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "slug" VARCHAR(63) NOT NULL,
    "isPublic" BOOLEAN NOT NULL DEFAULT true,
    "passwordHash" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "status_pages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "status_page_sections" (
    "id" UUID NOT NULL,
    "statusPageId" UUID NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "status_page_sections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "section_components" (
    "sectionId" UUID NOT NULL,
    "componentId" UUID NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "section_components_pkey" PRIMARY KEY ("sectionId","componentId")
);

-- CreateTable
CREATE TABLE "maintenance_windows" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "title" VARCHAR(200) NOT NULL,
    "body" VARCHAR(4000) NOT NULL DEFAULT '',
    "startsAt" TIMESTAMPTZ(3) NOT NULL,
    "endsAt" TIMESTAMPTZ(3) NOT NULL,
    "cancelledAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "maintenance_windows_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "maintenance_components" (
    "maintenanceId" UUID NOT NULL,
    "componentId" UUID NOT NULL,

    CONSTRAINT "maintenance_components_pkey" PRIMARY KEY ("maintenanceId","componentId")
);

-- CreateTable
CREATE TABLE "incidents" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "monitorId" UUID,
    "openMonitorId" UUID,
    "title" VARCHAR(300) NOT NULL,
    "status" "IncidentStatus" NOT NULL DEFAULT 'open',
    "impact" "IncidentImpact" NOT NULL DEFAULT 'major',
    "source" "IncidentSource" NOT NULL DEFAULT 'monitor',
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "startedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "acknowledgedAt" TIMESTAMPTZ(3),
    "resolvedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "incidents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "check_results" (
    "id" BIGSERIAL NOT NULL,
    "monitorId" UUID NOT NULL,
    "region" VARCHAR(40) NOT NULL,
    "slot" TIMESTAMPTZ(3) NOT NULL,
    "checkedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "outcome" "CheckOutcome" NOT NULL,
    "responseMs" INTEGER,
    "dnsMs" INTEGER,
    "connectMs" INTEGER,
    "tlsMs" INTEGER,
    "waitingMs" INTEGER,
    "statusCode" INTEGER,
    "reason" VARCHAR(500),

    CONSTRAINT "check_results_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "escalation_policies" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "repeatCount" INTEGER NOT NULL DEFAULT 0,
    "silent" BOOLEAN NOT NULL DEFAULT false,
    "runbook" VARCHAR(4000) NOT NULL DEFAULT '',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "escalation_policies_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "escalation_steps" (
    "id" UUID NOT NULL,
    "policyId" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "delayMinutes" INTEGER NOT NULL,
    "minImpact" "IncidentImpact" NOT NULL DEFAULT 'none',

    CONSTRAINT "escalation_steps_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "escalation_targets" (
    "id" UUID NOT NULL,
    "stepId" UUID NOT NULL,
    "channel" "DeliveryChannel" NOT NULL,
    "target" VARCHAR(2048) NOT NULL,

    CONSTRAINT "escalation_targets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "escalation_deliveries" (
    "id" UUID NOT NULL,
    "incidentId" UUID NOT NULL,
    "stepId" UUID NOT NULL,
    "targetId" UUID NOT NULL,
    "cycle" INTEGER NOT NULL DEFAULT 0,
    "channel" "DeliveryChannel" NOT NULL,
    "target" VARCHAR(2048) NOT NULL,
    "status" "DeliveryStatus" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "reason" VARCHAR(500),
    "sentAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "escalation_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_records" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "principal" VARCHAR(100) NOT NULL,
    "key" VARCHAR(255) NOT NULL,
    "method" VARCHAR(10) NOT NULL,
    "path" VARCHAR(300) NOT NULL,
    "requestHash" CHAR(64) NOT NULL,
    "responseStatus" INTEGER,
    "responseBody" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "workspaces_slug_key" ON "workspaces"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE INDEX "memberships_userId_idx" ON "memberships"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "memberships_workspaceId_userId_key" ON "memberships"("workspaceId", "userId");

-- CreateIndex
CREATE UNIQUE INDEX "api_tokens_tokenHash_key" ON "api_tokens"("tokenHash");

-- CreateIndex
CREATE UNIQUE INDEX "oauth_grants_tokenId_workspaceId_key" ON "oauth_grants"("tokenId", "workspaceId");

-- CreateIndex
CREATE INDEX "components_workspaceId_idx" ON "components"("workspaceId");

-- CreateIndex
CREATE UNIQUE INDEX "monitors_componentId_key" ON "monitors"("componentId");

-- CreateIndex
CREATE UNIQUE INDEX "monitors_pingSecret_key" ON "monitors"("pingSecret");

-- CreateIndex
CREATE INDEX "monitors_workspaceId_createdAt_id_idx" ON "monitors"("workspaceId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "monitors_enabled_idx" ON "monitors"("enabled");

-- CreateIndex
CREATE UNIQUE INDEX "status_pages_slug_key" ON "status_pages"("slug");

-- CreateIndex
CREATE INDEX "status_pages_workspaceId_idx" ON "status_pages"("workspaceId");

-- CreateIndex
CREATE UNIQUE INDEX "status_page_sections_statusPageId_position_key" ON "status_page_sections"("statusPageId", "position");

-- CreateIndex
CREATE INDEX "maintenance_windows_workspaceId_startsAt_endsAt_idx" ON "maintenance_windows"("workspaceId", "startsAt", "endsAt");

-- CreateIndex
CREATE INDEX "maintenance_components_componentId_idx" ON "maintenance_components"("componentId");

-- CreateIndex
CREATE UNIQUE INDEX "incidents_openMonitorId_key" ON "incidents"("openMonitorId");

-- CreateIndex
CREATE INDEX "incidents_workspaceId_startedAt_idx" ON "incidents"("workspaceId", "startedAt");

-- CreateIndex
CREATE INDEX "incidents_monitorId_idx" ON "incidents"("monitorId");

-- CreateIndex
CREATE INDEX "check_results_monitorId_checkedAt_idx" ON "check_results"("monitorId", "checkedAt");

-- CreateIndex
CREATE UNIQUE INDEX "check_results_monitorId_region_slot_key" ON "check_results"("monitorId", "region", "slot");

-- CreateIndex
CREATE INDEX "escalation_policies_workspaceId_idx" ON "escalation_policies"("workspaceId");

-- CreateIndex
CREATE UNIQUE INDEX "escalation_steps_policyId_position_key" ON "escalation_steps"("policyId", "position");

-- CreateIndex
CREATE UNIQUE INDEX "escalation_deliveries_incidentId_stepId_cycle_targetId_key" ON "escalation_deliveries"("incidentId", "stepId", "cycle", "targetId");

-- CreateIndex
CREATE INDEX "idempotency_records_expiresAt_idx" ON "idempotency_records"("expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "idempotency_records_workspaceId_principal_key_key" ON "idempotency_records"("workspaceId", "principal", "key");

-- AddForeignKey
ALTER TABLE "workspaces" ADD CONSTRAINT "workspaces_defaultEscalationPolicyId_fkey" FOREIGN KEY ("defaultEscalationPolicyId") REFERENCES "escalation_policies"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_primaryWorkspaceId_fkey" FOREIGN KEY ("primaryWorkspaceId") REFERENCES "workspaces"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "oauth_grants" ADD CONSTRAINT "oauth_grants_tokenId_fkey" FOREIGN KEY ("tokenId") REFERENCES "api_tokens"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "oauth_grants" ADD CONSTRAINT "oauth_grants_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "components" ADD CONSTRAINT "components_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "monitors" ADD CONSTRAINT "monitors_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "monitors" ADD CONSTRAINT "monitors_componentId_fkey" FOREIGN KEY ("componentId") REFERENCES "components"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "monitors" ADD CONSTRAINT "monitors_escalationPolicyId_fkey" FOREIGN KEY ("escalationPolicyId") REFERENCES "escalation_policies"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "status_pages" ADD CONSTRAINT "status_pages_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "status_page_sections" ADD CONSTRAINT "status_page_sections_statusPageId_fkey" FOREIGN KEY ("statusPageId") REFERENCES "status_pages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "section_components" ADD CONSTRAINT "section_components_sectionId_fkey" FOREIGN KEY ("sectionId") REFERENCES "status_page_sections"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "section_components" ADD CONSTRAINT "section_components_componentId_fkey" FOREIGN KEY ("componentId") REFERENCES "components"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "maintenance_windows" ADD CONSTRAINT "maintenance_windows_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "maintenance_components" ADD CONSTRAINT "maintenance_components_maintenanceId_fkey" FOREIGN KEY ("maintenanceId") REFERENCES "maintenance_windows"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "maintenance_components" ADD CONSTRAINT "maintenance_components_componentId_fkey" FOREIGN KEY ("componentId") REFERENCES "components"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "incidents" ADD CONSTRAINT "incidents_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "incidents" ADD CONSTRAINT "incidents_monitorId_fkey" FOREIGN KEY ("monitorId") REFERENCES "monitors"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "check_results" ADD CONSTRAINT "check_results_monitorId_fkey" FOREIGN KEY ("monitorId") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "escalation_policies" ADD CONSTRAINT "escalation_policies_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "escalation_steps" ADD CONSTRAINT "escalation_steps_policyId_fkey" FOREIGN KEY ("policyId") REFERENCES "escalation_policies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "escalation_targets" ADD CONSTRAINT "escalation_targets_stepId_fkey" FOREIGN KEY ("stepId") REFERENCES "escalation_steps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "escalation_deliveries" ADD CONSTRAINT "escalation_deliveries_incidentId_fkey" FOREIGN KEY ("incidentId") REFERENCES "incidents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "escalation_deliveries" ADD CONSTRAINT "escalation_deliveries_stepId_fkey" FOREIGN KEY ("stepId") REFERENCES "escalation_steps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "escalation_deliveries" ADD CONSTRAINT "escalation_deliveries_targetId_fkey" FOREIGN KEY ("targetId") REFERENCES "escalation_targets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "idempotency_records" ADD CONSTRAINT "idempotency_records_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
