-- AlterEnum
ALTER TYPE "CheckOutcome" ADD VALUE 'missed';
