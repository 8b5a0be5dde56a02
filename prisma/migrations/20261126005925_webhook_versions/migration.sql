-- AlterTable
ALTER TABLE "webhooks" ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 1;
