// Creates (once) the demo workspace and its owner, then mints a fresh owner token and prints it as JSON.
// Used by `npm start`; the token secret is shown only here.
import { createPrisma } from '@statusvane/shared';
import { addMember, createToken, createUser, createWorkspace } from '../apps/api/src/services/admin/admin-commands.js';

const DEMO = { slug: 'demo', name: 'Demo workspace', email: 'demo@statusvane.local' };

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required');
const prisma = createPrisma(url, { max: 1 });
try {
  if (!(await prisma.workspace.findUnique({ where: { slug: DEMO.slug } }))) {
    await createWorkspace(prisma, { slug: DEMO.slug, name: DEMO.name, plan: 'solo' });
  }
  if (!(await prisma.user.findUnique({ where: { email: DEMO.email } }))) {
    await createUser(prisma, { email: DEMO.email, name: 'Demo owner' });
  }
  await addMember(prisma, { workspace: DEMO.slug, email: DEMO.email, role: 'owner' });
  const token = await createToken(prisma, { kind: 'org', workspace: DEMO.slug, role: 'owner', name: 'npm start demo token' });
  process.stdout.write(`${JSON.stringify({ workspace: DEMO.slug, tokenId: token.id, token: token.token })}\n`);
} finally {
  await prisma.$disconnect();
}
