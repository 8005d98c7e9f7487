const FOCUSABLE =
  'a[href]:not([tabindex^="-"]), input:not([disabled]):not([tabindex^="-"]), select:not([disabled]), ' +
  'textarea:not([disabled]), button:not([disabled]):not([tabindex^="-"]), [tabindex]:not([tabindex^="-"])';

/**
 * Keeps Tab inside the Dashboard's open overlay (file card, "add more", …) when it lives in a shadow
 * root. Uppy's own trap compares against `document.activeElement`, which from inside a shadow root is
 * the host, so it believes focus is outside and sends every Tab back to the first control (focus
 * loops). This listener runs first (capture, on the Dashboard's container), reads the real focus from
 * the shadow root, and moves it itself; with no overlay open, Tab is the browser's, as in Uppy.
 */
export function trapFocusInShadow(
  container: HTMLElement,
  activeOverlay: () => string | null,
  signal: AbortSignal,
): void {
  container.addEventListener(
    'keydown',
    (event) => {
      const overlay = activeOverlay();
      if (event.key !== 'Tab' || overlay === null) return;
      const root = container.getRootNode() as ShadowRoot | Document;
      const panel = container.querySelector<HTMLElement>(`[data-uppy-paneltype="${overlay}"]`) ?? container;
      const nodes = [...panel.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
        (n) => n.offsetParent !== null || n === root.activeElement,
      );
      if (nodes.length === 0) return;
      const index = nodes.indexOf(root.activeElement as HTMLElement);
      event.stopPropagation();
      if (index === -1) {
        event.preventDefault();
        nodes[0]!.focus();
      } else if (event.shiftKey && index === 0) {
        event.preventDefault();
        nodes.at(-1)!.focus();
      } else if (!event.shiftKey && index === nodes.length - 1) {
        event.preventDefault();
        nodes[0]!.focus();
      }
    },
    { capture: true, signal },
  );
}
