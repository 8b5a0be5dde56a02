-- AlterTable
ALTER TABLE "incidents" ADD COLUMN     "acknowledgedById" VARCHAR(100),
ADD COLUMN     "acknowledgedByName" VARCHAR(320),
ADD COLUMN     "acknowledgedByType" VARCHAR(10);
