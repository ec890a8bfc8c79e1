// Graph-level tests drive the compiled graph in this process (its ERP tools still over MCP).
export {
  type InProcessHarness as AgentHarness,
  resume,
  startAgentHarness,
  type TurnResult,
} from '../../bench/eval/local-stack.ts';
