/** The agents' channel tests (test/engine/channel-agents.ts) on the NATS broker (a real nats-server started for this file). */
import { agentsSuite } from "./channel-agents.js";

agentsSuite("nats");
