"""Fine-tune all-MiniLM-L6-v2 on train-fold question->gold passage pairs with MultipleNegativesRankingLoss
(in-batch negatives + one BM25 hard negative per pair), plain torch loop on CPU.
Usage: python finetune.py TRAIN_FOLD  -> saves cache/ft_foldN model, then embeds corpus+questions as tag ftN."""
import os, sys, time, random
os.environ['HF_HUB_OFFLINE'] = '1'
import numpy as np, torch
torch.set_num_threads(2)
import data, common, lex, evalm, embed

def main(train_fold, epochs=1, bs=32, lr=3e-5, scale=20.0, seed=0):
    train_fold = int(train_fold)
    T = common.setup(); qs, corpus = T['qs'], T['corpus']
    tr = T['f0'] if train_fold == 0 else T['f1']
    bm = lex.BM25(T['ptoks'], 0.9, 0.6)
    rng = random.Random(seed)
    # hard negatives: BM25 rank 3..30 non-gold passages with >= 60 chars
    S = bm.score_matrix([T['qtoks'][i] for i in tr])
    R = evalm.topk_from_scores(S, 30, T['plen'] >= 60)
    pairs = []
    for j, i in enumerate(tr):
        negs = [d for d in R[j][3:] if d not in qs[i]['rel']]
        for p in qs[i]['rel']:
            pairs.append((i, p, rng.choice(negs) if negs else rng.randrange(len(corpus))))
    model = embed.get_model()
    model.max_seq_length = 128  # training truncation (speed); restored to 256 before saving
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    steps_total = epochs * (len(pairs) // bs + 1)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / max(1, int(0.1 * steps_total))) * max(0.0, 1 - s / steps_total))
    def enc(texts):
        f = model.tokenize(texts)
        return torch.nn.functional.normalize(model(f)['sentence_embedding'], dim=-1)
    t0 = time.time(); step = 0
    for ep in range(epochs):
        rng.shuffle(pairs)
        # greedy batching that avoids duplicate questions/passages inside a batch
        pool = list(pairs); batches = []
        while pool:
            b, seenq, seenp, rest = [], set(), set(), []
            for x in pool:
                if len(b) < bs and x[0] not in seenq and x[1] not in seenp and x[2] not in seenp:
                    b.append(x); seenq.add(x[0]); seenp.update((x[1], x[2]))
                else:
                    rest.append(x)
            batches.append(b); pool = rest
        for b in batches:
            q = enc([qs[i]['text'] for i, _, _ in b])
            p = enc([corpus[x]['Passage'] for _, x, _ in b] + [corpus[n]['Passage'] for _, _, n in b])
            logits = scale * q @ p.T
            loss = torch.nn.functional.cross_entropy(logits, torch.arange(len(b)))
            loss.backward(); opt.step(); sched.step(); opt.zero_grad(); step += 1
            if step % 2 == 0: print(ep, step, len(batches), round(loss.item(), 4), round(time.time() - t0), flush=True)
    print('train_seconds', time.time() - t0, flush=True)
    out = f'{data.CACHE}/ft_fold{train_fold}'
    model.max_seq_length = 256
    model.save(out)
    model.eval()
    del model
    embed.main('ft', out, f'ft{train_fold}')

if __name__ == '__main__':
    main(*sys.argv[1:])
