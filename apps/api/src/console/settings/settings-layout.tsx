import type { ComponentChildren } from 'preact';
import { can } from '../../services/auth/permissions.js';
import { ConsoleLayout, type FlashMessage } from '../../views/layout.js';
import type { WorkspaceRequest } from '../define-page.js';
import { settingsNav } from '../workspace-paths.js';

/** A settings page: the workspace frame, the settings' own side navigation (what the role may open), the content. */
export function SettingsLayout(props: {
  req: WorkspaceRequest;
  section: string;
  title: string;
  lead?: ComponentChildren;
  actions?: ComponentChildren;
  flash?: FlashMessage | null | undefined;
  children: ComponentChildren;
}) {
  const { req } = props;
  const sections = settingsNav(req.base).filter((s) => !s.needs || can(req.ctx.role, s.needs));
  return (
    <ConsoleLayout chrome={req.chrome} title={`${props.title} · Settings`} section="settings" flash={props.flash}>
      <div class="settings">
        <nav class="settings-nav" aria-label="Settings">
          <p class="settings-nav-title">Settings</p>
          <ul>
            {sections.map((s) => (
              <li>
                <a href={s.href} aria-current={s.id === props.section ? 'page' : undefined}>
                  {s.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="settings-body">
          <div class="page-header">
            <div>
              <h1>{props.title}</h1>
              {props.lead && <p>{props.lead}</p>}
            </div>
            {props.actions}
          </div>
          {props.children}
        </div>
      </div>
    </ConsoleLayout>
  );
}
