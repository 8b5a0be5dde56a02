-- AlterTable
ALTER TABLE "monitors" ADD COLUMN     "minRunSeconds" INTEGER;
