// Short table sounds, synthesised with the Web Audio API (no sound files to load).

const TONES = {
  play: [[520, 0.06]],
  beat: [[660, 0.05], [880, 0.07]],
  take: [[330, 0.1], [262, 0.12]],
  turn: [[784, 0.08], [1047, 0.12]],
  win: [[523, 0.09], [659, 0.09], [784, 0.16]],
  lose: [[392, 0.12], [330, 0.12], [262, 0.22]],
};
const VOLUME = 0.08;
let audio = null;

/** The names of the sounds played, newest last (the page shows them to its tests). */
export const played = [];

export function playSound(name) {
  played.push(name);
  if (played.length > 20) played.shift();
  try {
    audio ??= new AudioContext();
    let at = audio.currentTime;
    for (const [frequency, seconds] of TONES[name]) {
      const oscillator = audio.createOscillator();
      const gain = audio.createGain();
      oscillator.frequency.value = frequency;
      gain.gain.setValueAtTime(VOLUME, at);
      gain.gain.exponentialRampToValueAtTime(0.001, at + seconds);
      oscillator.connect(gain).connect(audio.destination);
      oscillator.start(at);
      oscillator.stop(at + seconds);
      at += seconds;
    }
  } catch {
    // No audio device, or the browser refuses sound before a tap: stay silent.
  }
}
