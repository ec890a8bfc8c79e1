export { type AgentHarness, resume, startAgentHarness, type TurnResult } from '../../src/agent/eval/local-stack.ts';
