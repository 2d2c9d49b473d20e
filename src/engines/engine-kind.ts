/** The engines a Hub fronts. 'llamacpp' is the generic OpenAI-compatible kind (llama.cpp's server). */
export const ENGINE_KINDS = ['ollama', 'vllm', 'lemonade', 'omlx', 'llamacpp'] as const;
export type EngineKind = (typeof ENGINE_KINDS)[number];
