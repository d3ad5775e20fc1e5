import type { AppState, Principal } from '../AppState.ts';

/** The principal of a route behind `authenticate`; its absence is a wiring bug, hence a plain 500. */
export const requirePrincipal = (state: AppState): Principal => {
  if (state.principal === undefined) {
    throw new Error('route mounted without authenticate');
  }
  return state.principal;
};
