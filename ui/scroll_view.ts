/**
 * The visible window of a scrolling list, for lists that draw only the rows in view (Trace's event
 * list, the waterfall): its scroll offset and height, measured when it scrolls or is resized.
 *
 * @module
 */

import type { RefObject } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";

/** Where a scrolling element is: its scroll offset and its visible height (px). */
export interface ScrollView {
  top: number;
  height: number;
}

/**
 * Follows a scrolling element's visible window. Call `measure` from its `onScroll`; resizes are
 * followed by a `ResizeObserver`.
 *
 * @example
 * ```ts
 * // in a component: const { ref, view, measure } = useScrollView<HTMLDivElement>(400);
 * // <div ref={ref} onScroll={measure}>…rows from view.top to view.top + view.height…</div>
 * ```
 * @param initialHeight The height assumed before the first measure.
 * @returns The element's ref, its window, and the function that measures it again.
 */
export function useScrollView<T extends HTMLElement>(
  initialHeight: number,
): { ref: RefObject<T>; view: ScrollView; measure: () => void } {
  const ref = useRef<T>(null);
  const [view, setView] = useState<ScrollView>({ top: 0, height: initialHeight });
  const measure = () => {
    const el = ref.current;
    if (el) setView({ top: el.scrollTop, height: el.clientHeight });
  };
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return { ref, view, measure };
}
