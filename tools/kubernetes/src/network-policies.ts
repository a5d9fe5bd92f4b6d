import { BlockList, isIPv4 } from 'node:net';
import type { KubernetesObject } from './rendering';

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}
interface Peer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}
interface Rule {
  ports?: { protocol?: string; port?: number | string }[];
  from?: Peer[];
  to?: Peer[];
}
export interface NetworkPolicy extends KubernetesObject {
  spec: { podSelector: LabelSelector; policyTypes?: ('Ingress' | 'Egress')[]; ingress?: Rule[]; egress?: Rule[] };
}

/** A pod (its namespace and labels) or an address outside the cluster. */
export type Endpoint = { namespace: string; labels: Record<string, string> } | { ip: string };
type Pod = Extract<Endpoint, { namespace: string }>;

/** A selector's verdict on labels, as the API documents LabelSelector (an empty selector selects everything). */
export function selects(selector: LabelSelector, labels: Record<string, string>): boolean {
  const matched = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  return (
    matched &&
    (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
      switch (operator) {
        case 'In':
          return key in labels && values.includes(labels[key] ?? '');
        case 'NotIn':
          return !(key in labels) || !values.includes(labels[key] ?? '');
        case 'Exists':
          return key in labels;
        case 'DoesNotExist':
          return !(key in labels);
      }
    })
  );
}

function inCidr(ip: string, cidr: string): boolean {
  const [address = '', prefix = '32'] = cidr.split('/');
  const list = new BlockList();
  list.addSubnet(address, Number(prefix), 'ipv4');
  return isIPv4(ip) && list.check(ip, 'ipv4');
}

/** A namespace's labels as the API server sets them: its name under kubernetes.io/metadata.name. */
const namespaceLabels = (namespace: string) => ({ 'kubernetes.io/metadata.name': namespace });

function peerMatches(peer: Peer, policyNamespace: string, other: Endpoint): boolean {
  if (peer.ipBlock) return 'ip' in other && inCidr(other.ip, peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some((cidr) => inCidr(other.ip, cidr));
  if ('ip' in other) return false;
  const namespaceMatches = peer.namespaceSelector ? selects(peer.namespaceSelector, namespaceLabels(other.namespace)) : other.namespace === policyNamespace;
  return namespaceMatches && (peer.podSelector === undefined || selects(peer.podSelector, other.labels));
}

function ruleAllows(rule: Rule, peers: Peer[] | undefined, policyNamespace: string, other: Endpoint, port: number, protocol: string): boolean {
  const portMatches = (rule.ports ?? []).length === 0 || (rule.ports ?? []).some((entry) => (entry.protocol ?? 'TCP') === protocol && (entry.port === undefined || entry.port === port));
  const peerMatched = peers === undefined || peers.length === 0 || peers.some((peer) => peerMatches(peer, policyNamespace, other));
  return portMatches && peerMatched;
}

/** Whether `pod`'s policies of `direction` let it talk with `other` on `port`; a pod no policy isolates is not limited. */
function side(policies: readonly NetworkPolicy[], pod: Pod, direction: 'Ingress' | 'Egress', other: Endpoint, port: number, protocol: string): boolean {
  const isolating = policies.filter((policy) => {
    const types = policy.spec.policyTypes ?? (policy.spec.egress ? ['Ingress', 'Egress'] : ['Ingress']);
    return (policy.metadata.namespace ?? '') === pod.namespace && types.includes(direction) && selects(policy.spec.podSelector, pod.labels);
  });
  if (isolating.length === 0) return true;
  return isolating.some((policy) => {
    const namespace = policy.metadata.namespace ?? '';
    const rules = direction === 'Egress' ? policy.spec.egress ?? [] : policy.spec.ingress ?? [];
    return rules.some((rule) => ruleAllows(rule, direction === 'Egress' ? rule.to : rule.from, namespace, other, port, protocol));
  });
}

/** A connection from `from` to `to` on `port` as the policies allow it: the sender's egress and the receiver's ingress. */
export function allowed(policies: readonly NetworkPolicy[], from: Endpoint, to: Endpoint, port: number, protocol = 'TCP'): boolean {
  const leaves = 'ip' in from || side(policies, from, 'Egress', to, port, protocol);
  const enters = 'ip' in to || side(policies, to, 'Ingress', from, port, protocol);
  return leaves && enters;
}
