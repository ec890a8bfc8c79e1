/** Marks the memory-extraction call, so every model (including the offline one) knows what is asked. */
export const MEMORY_EXTRACTION_MARKER = '【记忆提取】';

export const MEMORY_EXTRACTION_PROMPT = `${MEMORY_EXTRACTION_MARKER}从下面的采购对话中提取：用户关心的供应商名称列表 suppliers（中文名），和一句话概括的查询 query（不超过 40 字）。
只输出 JSON：{"suppliers": ["..."], "query": "..."}，不要输出其他内容。`;

/** Marks the compaction call, so every model (including the offline one) knows what is asked. */
export const SUMMARY_MARKER = '【对话压缩】';

export const SUMMARY_PROMPT = `${SUMMARY_MARKER}把下面的采购对话压缩成要点摘要：用户的目标和偏好、已确认的事实与数字（供应商、零部件、价格、订单号）、已完成和未完成的事项。不超过 400 字。`;
