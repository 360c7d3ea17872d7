"""Topic vocabulary for the generated papers: what each field works on, measures and claims.

Fixed lists only; `seed.py` draws from them with a fixed random generator.
"""

from __future__ import annotations

from typing import TypedDict


class Topic(TypedDict):
    objects: list[str]
    tasks: list[str]
    benchmarks: list[str]
    metrics: list[str]
    baselines: list[str]
    problems: list[str]
    mechanisms: list[str]
    components: list[str]
    venues: list[str]


TOPICS: dict[str, Topic] = {
    "retrieval-augmented generation": {
        "objects": ["retrieval-augmented generation", "dense retrieval", "passage reranking", "evidence compression",
                    "hybrid sparse-dense retrieval", "query rewriting", "citation-grounded generation", "retrieval over long documents"],
        "tasks": ["open-domain question answering", "multi-hop question answering", "enterprise search", "fact verification",
                  "long-document question answering", "conversational search"],
        "benchmarks": ["NaturalQuestions-Open", "HotpotQA", "TriviaQA", "FEVER", "MultiDocQA", "BioASQ"],
        "metrics": ["exact match", "answer F1", "recall@20", "citation precision"],
        "baselines": ["vanilla RAG", "BM25 with a reader", "Fusion-in-Decoder", "a long-context model without retrieval"],
        "problems": ["Language models state facts that are not in their parameters with unwarranted confidence",
                     "Retrieved passages are often redundant, stale or off-topic",
                     "Retrievers and generators are usually tuned in isolation from each other"],
        "mechanisms": ["scores each passage with a lightweight critic before generation",
                       "interleaves retrieval with intermediate reasoning steps",
                       "compresses the retrieved evidence into a short working memory",
                       "trains the retriever from the generator's own feedback"],
        "components": ["the passage critic", "query rewriting", "evidence compression", "the reranker"],
        "venues": ["ACL", "EMNLP", "NAACL", "NeurIPS", "ICLR", "TACL", "arXiv"],
    },
    "llm agents": {
        "objects": ["tool-using language agents", "agent planning", "tool-call scheduling", "agent memory",
                    "self-correcting agents", "web agents", "task decomposition"],
        "tasks": ["multi-step tool use", "web navigation", "software maintenance", "spreadsheet automation",
                  "travel planning", "customer support workflows"],
        "benchmarks": ["ToolBench-Lite", "WebArena", "TravelPlanner", "SWE-Mini", "OfficeTasks", "API-Bank"],
        "metrics": ["task success rate", "pass rate", "tool-call accuracy", "goal completion"],
        "baselines": ["ReAct", "a plan-and-execute agent", "a single-prompt agent", "Reflexion-style retries"],
        "problems": ["Agents that call tools one at a time waste steps on work that could run concurrently",
                     "Long tool traces overflow the context window of the controlling model",
                     "Agents rarely recover from an early wrong tool call"],
        "mechanisms": ["builds a dependency graph of tool calls before acting",
                       "keeps a compact episodic memory of past tool results",
                       "verifies each step against the task requirements before moving on",
                       "delegates independent sub-tasks to isolated worker contexts"],
        "components": ["the planner", "episodic memory", "the step verifier", "parallel tool execution"],
        "venues": ["NeurIPS", "ICML", "ICLR", "COLM", "ACL", "arXiv"],
    },
    "multi-agent evaluation": {
        "objects": ["multi-agent systems", "sub-agent delegation", "agent communication graphs", "process metrics",
                    "orchestration policies", "collaboration benchmarks"],
        "tasks": ["collaborative reasoning", "delegated office work", "multi-agent debate", "research assistance",
                  "MCP-intensive workflows", "software team simulation"],
        "benchmarks": ["MAS-Arena", "DelegationSuite", "CollabQA", "OfficeBench-MA", "DebateEval", "WorkflowGym"],
        "metrics": ["success rate", "delegation F1", "hit recall", "process score"],
        "baselines": ["a single-agent baseline", "round-robin debate", "a fixed planner-worker pipeline", "majority voting"],
        "problems": ["Evaluations of multi-agent systems report final accuracy and ignore how the agents worked together",
                     "Delegation can add cost and latency without improving outcomes",
                     "Aggregate scores change with undocumented choices about missing answers and denominators"],
        "mechanisms": ["models agent interactions as a directed acyclic graph and scores its paths",
                       "compares each delegated unit against a golden plan of concurrent waves",
                       "pairs every multi-agent run with a single-agent run on the same task and seed",
                       "measures diversity of agent messages with lexical and embedding similarity"],
        "components": ["the golden delegation plan", "path-level redundancy scoring", "paired baselines", "the embedding term"],
        "venues": ["NeurIPS", "ICLR", "AAMAS", "COLM", "EMNLP", "arXiv"],
    },
    "efficient inference": {
        "objects": ["speculative decoding", "weight quantization", "KV-cache compression", "early exiting",
                    "batched serving", "sparse attention"],
        "tasks": ["low-latency serving", "on-device inference", "long-context decoding", "high-throughput batch inference",
                  "edge deployment", "multi-tenant serving"],
        "benchmarks": ["MT-Bench", "LongBench", "WikiText-103", "GSM8K", "HumanEval", "ShareGPT traces"],
        "metrics": ["accuracy", "win rate", "quality retained (%)", "draft acceptance rate"],
        "baselines": ["FP16 inference", "greedy autoregressive decoding", "GPTQ 4-bit", "a full KV cache"],
        "problems": ["Autoregressive decoding leaves accelerators memory-bound and underused",
                     "The key-value cache grows linearly with context length and dominates memory",
                     "Low-bit quantization usually needs calibration data that deployments do not have"],
        "mechanisms": ["drafts several tokens with a small model and verifies them in one pass",
                       "evicts cache entries whose attention mass stays low",
                       "quantizes weights group-wise with learned rounding and no calibration set",
                       "routes easy tokens through fewer layers"],
        "components": ["the draft model", "cache eviction", "learned rounding", "the exit classifier"],
        "venues": ["MLSys", "ICML", "NeurIPS", "ICLR", "arXiv"],
    },
    "vision-language models": {
        "objects": ["vision-language models", "visual instruction tuning", "image tokenization", "chart understanding",
                    "document understanding", "video-language grounding"],
        "tasks": ["visual question answering", "chart and table reading", "document parsing", "image captioning",
                  "video question answering", "GUI grounding"],
        "benchmarks": ["VQAv2", "ChartQA", "DocVQA", "TextVQA", "MMMU", "ScreenSpot"],
        "metrics": ["accuracy", "ANLS", "CIDEr", "relaxed accuracy"],
        "baselines": ["LLaVA-style instruction tuning", "a CLIP encoder with a linear projector", "OCR followed by a text model", "a frozen captioner"],
        "problems": ["High-resolution images produce thousands of visual tokens and slow the language model",
                     "Vision-language models misread numbers in charts and tables",
                     "Instruction data for documents and screens is scarce"],
        "mechanisms": ["merges redundant image patches before the language model sees them",
                       "renders synthetic charts with known values as supervision",
                       "aligns layout-aware OCR tokens with visual features",
                       "selects keyframes by question relevance"],
        "components": ["patch merging", "synthetic chart data", "layout tokens", "keyframe selection"],
        "venues": ["CVPR", "ICCV", "ECCV", "NeurIPS", "ICLR", "arXiv"],
    },
    "code generation": {
        "objects": ["code language models", "repository-level code completion", "test generation", "program repair",
                    "code review automation", "execution-guided decoding"],
        "tasks": ["function synthesis", "repository-level completion", "automated bug fixing", "unit test generation",
                  "code translation", "data-science notebooks"],
        "benchmarks": ["HumanEval", "MBPP", "RepoEval", "Defects4J", "DS-1000", "CrossCodeEval"],
        "metrics": ["pass@1", "exact match", "bugs fixed", "line coverage"],
        "baselines": ["in-file completion", "sampling without execution feedback", "a retrieval-free code model", "template-based repair"],
        "problems": ["Code models see one file while real changes span a whole repository",
                     "Generated programs often compile but fail hidden tests",
                     "Test suites written by models cover only the happy path"],
        "mechanisms": ["retrieves cross-file context from the repository's import graph",
                       "executes candidate programs and feeds failures back into decoding",
                       "ranks candidate patches by the tests they repair",
                       "mutates programs to find tests that distinguish correct from buggy code"],
        "components": ["cross-file retrieval", "execution feedback", "patch ranking", "mutation analysis"],
        "venues": ["ICSE", "FSE", "NeurIPS", "ICLR", "ACL", "arXiv"],
    },
}  # fmt: skip

ADJECTIVES = ["Scalable", "Robust", "Adaptive", "Efficient", "Grounded", "Faithful", "Compositional", "Lightweight",
              "Self-Supervised", "Verifiable", "Hierarchical", "Cost-Aware", "Parallel", "Calibrated"]  # fmt: skip
NAME_HEADS = ["Flash", "Spec", "Graph", "Meta", "Chain", "Tree", "Swarm", "Lumen", "Atlas", "Hydra", "Nexus", "Quill",
              "Vega", "Echo", "Pivot", "Forge", "Sage", "Delta", "Orbit", "Prism", "Relay", "Sparrow", "Tandem", "Weave"]  # fmt: skip
NAME_TAILS = ["RAG", "Agent", "Bench", "Eval", "Route", "Tune", "Net", "Mem", "Plan", "Quant", "Lens", "Scope",
              "Coder", "VL", "Cache", "Draft"]  # fmt: skip
TITLE_FORMS = [
    "{name}: {adj} {obj} for {task}",
    "{adj} {obj} for {task}",
    "On the Limits of {obj} in {task}",
    "Towards {adj} {task} with {obj}",
    "{name}: Rethinking {obj} for {task}",
    "What Makes {obj} Work? A Study on {task}",
    "{name}: {obj} at Scale",
    "Revisiting {obj}: Lessons from {task}",
]
AFFILIATIONS = [
    "Aldermoor University", "Northam Institute of Technology", "Southport Harbour University", "Westhaven College",
    "Thornbury Research Lab", "Kestrel Bay AI Institute", "Glenmoor School of Informatics", "Riverton Polytechnic",
    "Larkspur Labs", "Eastcombe University", "Brightwater Computing Centre", "Cliffmoor Institute for Language",
]  # fmt: skip
