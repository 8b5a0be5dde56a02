-- Status page branding (issue 28): a logo, a favicon, the brand colour and the company's website, all optional.

-- AlterTable
ALTER TABLE "status_pages" ADD COLUMN     "brandColor" VARCHAR(7),
ADD COLUMN     "faviconUrl" VARCHAR(2048),
ADD COLUMN     "logoUrl" VARCHAR(2048),
ADD COLUMN     "websiteUrl" VARCHAR(2048);
