import { playSettingsFrom } from '../settings';

describe('the pauseAfter lab setting', () => {
  it('is sent as pause_after when a whole number of seconds >= 1', () => {
    expect(playSettingsFrom({ pauseAfter: 120 })).toEqual({ pause_after: 120 });
  });

  it('is dropped when it is not', () => {
    for (const pauseAfter of [0, -5, 2.5, '300', null]) {
      expect(playSettingsFrom({ pauseAfter })).toEqual({});
    }
  });
});
