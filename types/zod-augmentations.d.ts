// Two libraries add methods to zod's ZodType: LangGraph (`register`, by `@langchain/langgraph/zod`) and
// zod-to-openapi (`openapi`, through `@hono/zod-openapi`). The type checker keeps the OpenAPI methods only when
// LangGraph's addition is read first, whatever order the sources import them in; tsconfig.json lists this file
// before every source so that it is.
import type {} from '@langchain/langgraph/zod';
