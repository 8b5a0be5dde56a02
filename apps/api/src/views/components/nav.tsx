/** One entry of the workspace navigation. */
export interface NavItem {
  id: string;
  label: string;
  href: string;
}

/** The workspace's sections; the current one is marked for assistive technology, not by colour alone. */
export function Nav({ items, current }: { items: readonly NavItem[]; current?: string | undefined }) {
  return (
    <nav class="nav" aria-label="Workspace">
      <ul>
        {items.map((item) => (
          <li>
            <a href={item.href} aria-current={item.id === current ? 'page' : undefined}>
              {item.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
