// Creates (once) the demo workspace and its owner, then mints a fresh owner token and prints it as JSON. The first
// time (while the demo owner has no console password), it also gives them a generated password and prints it as
// `signIn`. Used by `npm start`; the token and the password are shown only here.
import { createPrisma, randomSecret } from '@statusvane/shared';
import { addMember, createToken, createUser, createWorkspace } from '../apps/api/src/admin/admin-commands.js';
import { hashPassword } from '../apps/api/src/services/status-pages/password.js';

const DEMO = { slug: 'demo', name: 'Demo workspace', email: 'demo@statusvane.local' };

async function seed(url: string): Promise<void> {
  const prisma = createPrisma(url, { max: 1 });
  try {
    // upsert-like: a second `npm start` (or two at once) reuses the demo workspace and owner.
    if (!(await prisma.workspace.findUnique({ where: { slug: DEMO.slug } }))) {
      await createWorkspace(prisma, { slug: DEMO.slug, name: DEMO.name, plan: 'solo' }).catch(async (err: unknown) => {
        if (!(await prisma.workspace.findUnique({ where: { slug: DEMO.slug } }))) throw err;
      });
    }
    if (!(await prisma.user.findUnique({ where: { email: DEMO.email } }))) {
      await createUser(prisma, { email: DEMO.email, name: 'Demo owner' }).catch(async (err: unknown) => {
        if (!(await prisma.user.findUnique({ where: { email: DEMO.email } }))) throw err;
      });
    }
    await addMember(prisma, { workspace: DEMO.slug, email: DEMO.email, role: 'owner' });
    const token = await createToken(prisma, {
      kind: 'org',
      workspace: DEMO.slug,
      role: 'owner',
      name: 'npm start demo token',
    });
    // Only while no password is set (a conditional update: two starts at once set one, and a password the owner chose
    // is never replaced). 20 random base64url characters: well within the console's 12 to 256.
    const password = randomSecret(15);
    const { count } = await prisma.user.updateMany({
      where: { email: DEMO.email, passwordHash: null },
      data: { passwordHash: await hashPassword(password), passwordChangedAt: new Date() },
    });
    const signIn = { email: DEMO.email, password: count === 1 ? password : null };
    process.stdout.write(
      `${JSON.stringify({ workspace: DEMO.slug, tokenId: token.id, token: token.token, signIn })}\n`,
    );
  } finally {
    await prisma.$disconnect();
  }
}

const url = process.env.DATABASE_URL;
if (!url) {
  process.stderr.write('[seed-demo] DATABASE_URL is required\n');
  process.exit(1);
}
seed(url).catch((err: unknown) => {
  process.stderr.write(
    `[seed-demo] could not create the demo workspace: ${String((err as Error)?.message ?? err)
      .trim()
      .split('\n')
      .pop()}\n`,
  );
  process.exit(1);
});
