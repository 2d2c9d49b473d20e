import { createContext, useContext } from 'react';
import type { Role } from './types';

export type GuideStep = 'check' | 'find' | 'connect' | 'approve';

export interface DashboardContext {
  readonly role: Role;
  /** A qa:read sign-in: no control that changes anything is shown. */
  readonly readOnly: boolean;
  /** The setup guide is open over the page, which is inert behind it. */
  readonly guideOpen: boolean;
  /** Opens the setup guide; without a step it decides from the Hub's state. */
  openGuide(step?: GuideStep): void;
}

export const Dashboard = createContext<DashboardContext>({ role: 'read', readOnly: true, guideOpen: false, openGuide: () => undefined });
export const useDashboard = (): DashboardContext => useContext(Dashboard);
