"""InternVL3 and InternVL3.5 configs with the real model sizes, for the benchmarks' random checkpoints.

Shapes from docs/models.md, "Model sizes": InternViT-300M (1024 wide, 24 layers, 16 heads) for every
size; the language model is Qwen2.5-0.5B-sized for 1B (896 wide, 24 layers, 14 heads, 2 KV heads,
intermediate 4864) and Qwen2.5-7B-sized for 8B (3584 wide, 28 layers, 28 heads, 4 KV heads,
intermediate 18944); vocabulary 151674. The tiny test tokenizer goes with them (its ids fall inside
the vocabulary). InternVL3.5-1B: the same vision tower and Qwen3-0.6B (1024 wide, 28 layers, 16 heads of 128,
8 KV heads, intermediate 3072, q/k head norms, no q/k/v biases, tied embeddings, vocabulary 151936).
"""
import os

from tokenizers import Tokenizer
from transformers import InternVLConfig

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKENIZER = os.path.join(ROOT, "tests", "fixtures", "tokenizers", "tiny-qwen", "tokenizer.json")
TEXT35 = {
    "1b": dict(hidden_size=1024, intermediate_size=3072, num_hidden_layers=28, num_attention_heads=16,
               num_key_value_heads=8, head_dim=128, tie_word_embeddings=True),
}
TEXT = {
    "1b": dict(hidden_size=896, intermediate_size=4864, num_hidden_layers=24, num_attention_heads=14, num_key_value_heads=2),
    "8b": dict(hidden_size=3584, intermediate_size=18944, num_hidden_layers=28, num_attention_heads=28,
               num_key_value_heads=4),
}


def internvl3_config(shape="1b", kv_heads=None):
    """The -hf InternVLConfig of InternVL3-{1B,8B}; kv_heads overrides the decoder's KV head count."""
    text = dict(TEXT[shape])
    if kv_heads is not None:
        text["num_key_value_heads"] = kv_heads
    return _config(dict(model_type="qwen2", vocab_size=151674, max_position_embeddings=32768, tie_word_embeddings=False,
                        rope_parameters={"rope_type": "dynamic", "factor": 2.0, "rope_theta": 1000000.0}, **text))


def internvl35_config(shape="1b"):
    """The -HF InternVLConfig of InternVL3.5-1B: the same vision tower, a Qwen3 language model."""
    return _config(dict(model_type="qwen3", vocab_size=151936, max_position_embeddings=40960, attention_bias=False,
                        rope_parameters={"rope_type": "default", "rope_theta": 1000000.0}, **TEXT35[shape]))


def _config(text):
    tok = Tokenizer.from_file(TOKENIZER)
    config = InternVLConfig(
        vision_config=dict(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096,
                           attention_bias=True, use_qk_norm=False, norm_type="layer_norm", layer_norm_eps=1e-6,
                           image_size=[448, 448], patch_size=[14, 14], hidden_act="gelu", use_mean_pooling=True),
        text_config=dict(rms_norm_eps=1e-6, hidden_act="silu", **text),
        image_token_id=tok.token_to_id("<IMG_CONTEXT>"), downsample_ratio=0.5, projector_hidden_act="gelu",
        vision_feature_layer=-1, vision_feature_select_strategy="default",
        tie_word_embeddings=text["tie_word_embeddings"])
    config.architectures = ["InternVLForConditionalGeneration"]  # what the model's save_pretrained writes
    return config
