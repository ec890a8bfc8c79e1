import notoSansSc from '@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf?url';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import './styles.css';

// A Chinese font shipped with the UI, used only where the system has none (intranet PCs, bare Linux): the
// browser fetches it lazily, the first time a character needs it.
const font = document.createElement('style');
font.textContent = `@font-face { font-family: 'Procura Sans SC'; src: url('${notoSansSc}') format('truetype'); font-display: swap; }`;
document.head.append(font);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
