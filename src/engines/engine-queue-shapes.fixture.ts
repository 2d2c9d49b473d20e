/**
 * Recorded shapes of what engines say about their own queue, modelled on the engines' documented
 * output: vLLM's Prometheus /metrics text (V1 engine: `engine` and `model_name` labels; older
 * builds: `model_name` only, plus num_requests_swapped), and llama.cpp's GET /slots array
 * (current builds: is_processing; older ones: state). Shared by the parser tests and the
 * simulator's fidelity test, so both are held to one picture of the wire.
 */

const MODEL = 'Qwen/Qwen3-8B';

/** The histogram noise around the gauges: most of a real /metrics answer is bucket lines. */
function histogram(name: string, labels: string, buckets: readonly number[]): string {
  const lines = [`# HELP ${name} Histogram of ${name}.`, `# TYPE ${name} histogram`];
  for (const le of buckets) lines.push(`${name}_bucket{${labels},le="${le}"} 0.0`);
  lines.push(`${name}_bucket{${labels},le="+Inf"} 12.0`, `${name}_count{${labels}} 12.0`, `${name}_sum{${labels}} 3.21`);
  return lines.join('\n');
}

/** vLLM V1 with one engine core: 1 running, 3 waiting. */
export const VLLM_V1_METRICS = [
  '# HELP python_gc_objects_collected_total Objects collected during gc',
  '# TYPE python_gc_objects_collected_total counter',
  'python_gc_objects_collected_total{generation="0"} 12345.0',
  '# HELP process_resident_memory_bytes Resident memory size in bytes.',
  '# TYPE process_resident_memory_bytes gauge',
  'process_resident_memory_bytes 1.2345e+09',
  '# HELP vllm:num_requests_running Number of requests in model execution batches.',
  '# TYPE vllm:num_requests_running gauge',
  `vllm:num_requests_running{engine="0",model_name="${MODEL}"} 1.0`,
  '# HELP vllm:num_requests_waiting Number of requests waiting to be processed.',
  '# TYPE vllm:num_requests_waiting gauge',
  `vllm:num_requests_waiting{engine="0",model_name="${MODEL}"} 3.0`,
  '# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.',
  '# TYPE vllm:kv_cache_usage_perc gauge',
  `vllm:kv_cache_usage_perc{engine="0",model_name="${MODEL}"} 0.0421`,
  '# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.',
  '# TYPE vllm:prefix_cache_queries_total counter',
  `vllm:prefix_cache_queries_total{engine="0",model_name="${MODEL}"} 20480.0`,
  '# HELP vllm:lora_requests_info Running stats on lora requests.',
  '# TYPE vllm:lora_requests_info gauge',
  'vllm:lora_requests_info{max_lora="0",running_lora_adapters="",waiting_lora_adapters=""} 1.7649e+09',
  histogram(
    'vllm:time_to_first_token_seconds',
    `engine="0",model_name="${MODEL}"`,
    [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10],
  ),
  histogram('vllm:e2e_request_latency_seconds', `engine="0",model_name="${MODEL}"`, [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60]),
  '',
].join('\n');

/** vLLM V1 serving with two data-parallel engine cores: one series per core, 2+1 running, 0+4 waiting. */
export const VLLM_V1_DATA_PARALLEL_METRICS = [
  '# TYPE vllm:num_requests_running gauge',
  `vllm:num_requests_running{engine="0",model_name="${MODEL}"} 2.0`,
  `vllm:num_requests_running{engine="1",model_name="${MODEL}"} 1.0`,
  '# TYPE vllm:num_requests_waiting gauge',
  `vllm:num_requests_waiting{engine="0",model_name="${MODEL}"} 0.0`,
  `vllm:num_requests_waiting{engine="1",model_name="${MODEL}"} 4.0`,
  '',
].join('\n');

/** A pre-V1 vLLM: model_name only, and a swapped gauge (preempted requests waiting to resume). 2 running, 1 waiting, 1 swapped. */
export const VLLM_V0_METRICS = [
  '# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig',
  '# TYPE vllm:cache_config_info gauge',
  'vllm:cache_config_info{block_size="16",cache_dtype="auto",gpu_memory_utilization="0.9",num_gpu_blocks="2048"} 1.0',
  '# HELP vllm:num_requests_running Number of requests currently running on GPU.',
  '# TYPE vllm:num_requests_running gauge',
  `vllm:num_requests_running{model_name="${MODEL}"} 2.0`,
  '# HELP vllm:num_requests_swapped Number of requests swapped to CPU.',
  '# TYPE vllm:num_requests_swapped gauge',
  `vllm:num_requests_swapped{model_name="${MODEL}"} 1.0`,
  '# HELP vllm:num_requests_waiting Number of requests waiting to be processed.',
  '# TYPE vllm:num_requests_waiting gauge',
  `vllm:num_requests_waiting{model_name="${MODEL}"} 1.0`,
  '',
].join('\n');

/** One llama.cpp slot in the shape of a current build's GET /slots entry. */
export function llamaSlot(id: number, processing: boolean): Record<string, unknown> {
  return {
    id,
    id_task: processing ? 100 + id : -1,
    n_ctx: 8192,
    speculative: false,
    is_processing: processing,
    params: {
      n_predict: -1,
      seed: 4294967295,
      temperature: 0.8,
      top_k: 40,
      top_p: 0.95,
      min_p: 0.05,
      samplers: ['penalties', 'dry', 'top_k', 'typ_p', 'top_p', 'min_p', 'xtc', 'temperature'],
      stream: true,
    },
    next_token: { has_next_token: processing, has_new_line: false, n_remain: -1, n_decoded: processing ? 57 : 0, stopping_word: '' },
  };
}

/** A current llama-server started with -np 4, two slots processing. */
export const LLAMACPP_SLOTS = [llamaSlot(0, true), llamaSlot(1, false), llamaSlot(2, true), llamaSlot(3, false)];

/** An older llama-server (before is_processing): `state` 0 is idle, 1 processing. One of two slots busy. */
export const LLAMACPP_SLOTS_WITH_STATE = [
  {
    id: 0,
    state: 1,
    task_id: 7,
    n_ctx: 4096,
    model: '/models/qwen3-8b-q4_k_m.gguf',
    prompt: '',
    next_token: { has_next_token: true, n_remain: -1, n_decoded: 12 },
  },
  {
    id: 1,
    state: 0,
    task_id: -1,
    n_ctx: 4096,
    model: '/models/qwen3-8b-q4_k_m.gguf',
    prompt: '',
    next_token: { has_next_token: true, n_remain: -1, n_decoded: 0 },
  },
];

/** What a llama-server started with --no-slots answers (HTTP 501). */
export const LLAMACPP_SLOTS_DISABLED = {
  error: { code: 501, message: 'This server does not support slots endpoint. Start it with `--slots`', type: 'not_supported_error' },
};
