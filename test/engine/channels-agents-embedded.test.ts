/** The agents' channel tests (test/engine/channel-agents.ts) on the embedded broker (the run tree's journal). */
import { agentsSuite } from "./channel-agents.js";

agentsSuite("embedded");
