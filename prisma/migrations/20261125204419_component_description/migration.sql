-- AlterTable
ALTER TABLE "components" ADD COLUMN     "description" VARCHAR(500) NOT NULL DEFAULT '';
