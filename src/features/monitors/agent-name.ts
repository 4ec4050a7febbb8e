import { agentNameFromUrl } from '../agents/naming.ts';
import type { MonitorRecord } from '../../store/contract/monitors.ts';

/**
 * The agent a monitor's runs join: the one it names (`agent`, so that CI's validations of the card
 * and the monitor's runs feed one history), else the one the monitored URL names, normalised (as a
 * card's endpoint URL names one), so that the history stays one agent's whatever the card says of
 * itself, broken or not. Undefined for a URL no agent name can hold (over 200 characters).
 */
export const monitorAgentName = (monitor: Pick<MonitorRecord, 'agent' | 'url'>): string | undefined => monitor.agent ?? agentNameFromUrl(monitor.url);
