-- CreateEnum
CREATE TYPE "IncidentUpdateStatus" AS ENUM ('investigating', 'identified', 'monitoring', 'resolved');

-- CreateEnum
CREATE TYPE "SubscriberKind" AS ENUM ('email', 'webhook');

-- CreateEnum
CREATE TYPE "SubscriberDeliveryStatus" AS ENUM ('pending', 'sending', 'sent', 'failed');

-- AlterTable
ALTER TABLE "status_pages" ADD COLUMN     "customDomain" VARCHAR(253);

-- CreateTable
CREATE TABLE "incident_updates" (
    "id" UUID NOT NULL,
    "incidentId" UUID NOT NULL,
    "status" "IncidentUpdateStatus" NOT NULL,
    "message" VARCHAR(5000) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "incident_updates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "incident_components" (
    "incidentId" UUID NOT NULL,
    "componentId" UUID NOT NULL,

    CONSTRAINT "incident_components_pkey" PRIMARY KEY ("incidentId","componentId")
);

-- CreateTable
CREATE TABLE "status_page_subscribers" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "statusPageId" UUID NOT NULL,
    "kind" "SubscriberKind" NOT NULL,
    "email" VARCHAR(320),
    "webhookUrlEnc" TEXT,
    "webhookDisplay" VARCHAR(2048),
    "secretEnc" TEXT,
    "addressHash" CHAR(64) NOT NULL,
    "confirmTokenHash" CHAR(64),
    "confirmTokenEnc" TEXT,
    "confirmExpiresAt" TIMESTAMPTZ(3),
    "unsubscribeTokenHash" CHAR(64) NOT NULL,
    "unsubscribeTokenEnc" TEXT NOT NULL,
    "confirmedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "status_page_subscribers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "subscriber_components" (
    "subscriberId" UUID NOT NULL,
    "componentId" UUID NOT NULL,

    CONSTRAINT "subscriber_components_pkey" PRIMARY KEY ("subscriberId","componentId")
);

-- CreateTable
CREATE TABLE "subscriber_deliveries" (
    "id" UUID NOT NULL,
    "subscriberId" UUID NOT NULL,
    "eventKey" VARCHAR(200) NOT NULL,
    "status" "SubscriberDeliveryStatus" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "reason" VARCHAR(500),
    "claimedAt" TIMESTAMPTZ(3),
    "sentAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "subscriber_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "incident_updates_incidentId_createdAt_idx" ON "incident_updates"("incidentId", "createdAt");

-- CreateIndex
CREATE INDEX "incident_updates_createdAt_idx" ON "incident_updates"("createdAt");

-- CreateIndex
CREATE INDEX "incident_components_componentId_idx" ON "incident_components"("componentId");

-- CreateIndex
CREATE UNIQUE INDEX "status_page_subscribers_confirmTokenHash_key" ON "status_page_subscribers"("confirmTokenHash");

-- CreateIndex
CREATE UNIQUE INDEX "status_page_subscribers_unsubscribeTokenHash_key" ON "status_page_subscribers"("unsubscribeTokenHash");

-- CreateIndex
CREATE INDEX "status_page_subscribers_workspaceId_idx" ON "status_page_subscribers"("workspaceId");

-- CreateIndex
CREATE INDEX "status_page_subscribers_statusPageId_confirmedAt_idx" ON "status_page_subscribers"("statusPageId", "confirmedAt");

-- CreateIndex
CREATE UNIQUE INDEX "status_page_subscribers_statusPageId_addressHash_key" ON "status_page_subscribers"("statusPageId", "addressHash");

-- CreateIndex
CREATE INDEX "subscriber_components_componentId_idx" ON "subscriber_components"("componentId");

-- CreateIndex
CREATE INDEX "subscriber_deliveries_createdAt_idx" ON "subscriber_deliveries"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "subscriber_deliveries_subscriberId_eventKey_key" ON "subscriber_deliveries"("subscriberId", "eventKey");

-- CreateIndex
CREATE INDEX "incidents_workspaceId_resolvedAt_idx" ON "incidents"("workspaceId", "resolvedAt");

-- CreateIndex
CREATE UNIQUE INDEX "status_pages_customDomain_key" ON "status_pages"("customDomain");

-- AddForeignKey
ALTER TABLE "incident_updates" ADD CONSTRAINT "incident_updates_incidentId_fkey" FOREIGN KEY ("incidentId") REFERENCES "incidents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "incident_components" ADD CONSTRAINT "incident_components_incidentId_fkey" FOREIGN KEY ("incidentId") REFERENCES "incidents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "incident_components" ADD CONSTRAINT "incident_components_componentId_fkey" FOREIGN KEY ("componentId") REFERENCES "components"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "status_page_subscribers" ADD CONSTRAINT "status_page_subscribers_statusPageId_fkey" FOREIGN KEY ("statusPageId") REFERENCES "status_pages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscriber_components" ADD CONSTRAINT "subscriber_components_subscriberId_fkey" FOREIGN KEY ("subscriberId") REFERENCES "status_page_subscribers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscriber_components" ADD CONSTRAINT "subscriber_components_componentId_fkey" FOREIGN KEY ("componentId") REFERENCES "components"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscriber_deliveries" ADD CONSTRAINT "subscriber_deliveries_subscriberId_fkey" FOREIGN KEY ("subscriberId") REFERENCES "status_page_subscribers"("id") ON DELETE CASCADE ON UPDATE CASCADE;
